import { Command } from '@nestjs/cqrs';
import type { CommandContext } from '#warden/kernel';
import type { ExecutionModerator } from '../../domain/action-execution.decider.js';

export interface ExecuteActionResult {
  readonly executionId: string;
  /** False when the execution named by `options.executionId` was recorded already: nothing was appended. */
  readonly created: boolean;
}

export interface ExecuteActionOptions {
  /**
   * The execution's id, derived by the caller from what it means (a bulk action's item:
   * docs/bulk-actions.md, "Never twice"); without it, a new id. An id already executed executes nothing.
   */
  readonly executionId?: string;
  /**
   * The console user who asked for it and why (a bulk action's manager and reason): the callback
   * then sends `actorEmail` and `decisionReason` as for a moderator's decision (docs/callbacks.md).
   * Absent for `POST /api/v1/actions`, whose actor is the platform's: no actor fields.
   */
  readonly moderator?: ExecutionModerator;
}

/**
 * The platform executes an action (docs/enforcement.md, "`POST /api/v1/actions`: actions the platform executes"), as received: checked whole against the
 * catalog, then recorded as an ActionExecuted on its own stream. All or nothing.
 */
export class ExecuteActionCommand extends Command<ExecuteActionResult> {
  constructor(
    readonly body: Record<string, unknown>,
    readonly context: CommandContext,
    readonly options: ExecuteActionOptions = {},
  ) {
    super();
  }
}
