import { Command } from '@nestjs/cqrs';
import type { CommandContext } from '#warden/kernel';

export interface ExecuteActionResult {
  readonly executionId: string;
}

/**
 * The platform executes an action (docs/enforcement.md, "`POST /api/v1/actions`: actions the platform executes"), as received: checked whole against the
 * catalog, then recorded as an ActionExecuted on its own stream. All or nothing.
 */
export class ExecuteActionCommand extends Command<ExecuteActionResult> {
  constructor(
    readonly body: Record<string, unknown>,
    readonly context: CommandContext,
  ) {
    super();
  }
}
