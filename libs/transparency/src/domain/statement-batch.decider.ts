import { conflict, type Decider } from '#warden/kernel';
import type { DatabaseStatement } from './statement-of-reasons.js';
import type { BatchedStatement, StatementBatchEvent } from './statement-batch.events.js';

/**
 * The multiple endpoint takes at most 100 statements a call (the Database's API documentation,
 * "Creating Multiple Statements"; its controller validates `statements` as `between:1,100`).
 */
export const MAX_BATCH = 100;

export type BatchStatus = 'none' | 'pending' | 'retrying' | 'submitted' | 'rejected' | 'abandoned';

/** What an attempt came to, as the submitter read the Database's answer. */
export type BatchAttemptOutcome =
  | { kind: 'created'; status: number }
  /** 422 with `errors.existing_puids`: these are in the Database already; none of the batch was created. */
  | { kind: 'existing'; status: number; puids: string[] }
  | { kind: 'refused'; status: number; error: string }
  | { kind: 'failed'; status: number | null; error: string; retryAfterMs: number | null };

export type StatementBatchCommand =
  | { type: 'RequestBatch'; batchId: string; statements: BatchedStatement[]; bodies: DatabaseStatement[]; at: string }
  | {
      type: 'RecordAttempt';
      attempt: number;
      at: string;
      outcome: BatchAttemptOutcome;
      /** Retry delays in ms (the callbacks' schedule); its length is the number of retries. */
      schedule: readonly number[];
      /** In [0, 1): the jitter draw. */
      random: number;
    };

export interface StatementBatchState {
  status: BatchStatus;
  batchId: string | null;
  /** The statements still to send (those the Database reported it had are left out). */
  remaining: DatabaseStatement[];
  attempts: number;
  /** Failed attempts so far: the schedule's index (an answer of existing PUIDs is no failure). */
  failures: number;
  nextAttemptAt: string | null;
}

const JITTER = 0.2;
const MAX_RETRY_AFTER_MS = 86_400_000;

/** The delay before retry `retry` (1: the first), spread by ±20 %, at least what Retry-After asks (a day at most); undefined: no retry left. */
export function batchRetryDelayMs(schedule: readonly number[], retry: number, random: number, retryAfterMs: number | null): number | undefined {
  const base = schedule[retry - 1];
  if (base === undefined) return undefined;
  const jittered = Math.max(1, Math.round(base * (1 - JITTER + 2 * JITTER * random)));
  return retryAfterMs === null ? jittered : Math.max(jittered, Math.min(retryAfterMs, MAX_RETRY_AFTER_MS));
}

const plus = (at: string, ms: number) => new Date(Date.parse(at) + ms).toISOString();

/**
 * One batch of statements submitted to the Transparency Database: requested once, attempted until
 * the Database creates it (or has it all already), refuses its content, or the retry schedule runs
 * out. Attempts carry their number, so one decided on a stale state (a second worker) is refused.
 */
export const statementBatchDecider: Decider<StatementBatchCommand, StatementBatchState, StatementBatchEvent> = {
  eventTypes: {
    StatementBatchRequested: true,
    StatementBatchAttemptFailed: true,
    StatementBatchSubmitted: true,
    StatementBatchRejected: true,
    StatementBatchAbandoned: true,
  },
  initialState: { status: 'none', batchId: null, remaining: [], attempts: 0, failures: 0, nextAttemptAt: null },

  decide(command, state) {
    switch (command.type) {
      case 'RequestBatch': {
        if (state.status !== 'none') return [];
        if (command.statements.length === 0 || command.statements.length > MAX_BATCH || command.bodies.length !== command.statements.length) {
          throw conflict(`A batch holds 1 to ${MAX_BATCH} statements, each with its body`);
        }
        return [
          {
            type: 'StatementBatchRequested',
            data: { batchId: command.batchId, statements: command.statements, bodies: command.bodies, requestedAt: command.at, nextAttemptAt: command.at },
          },
        ];
      }
      case 'RecordAttempt': {
        const batchId = state.batchId;
        if (batchId === null || (state.status !== 'pending' && state.status !== 'retrying') || command.attempt !== state.attempts + 1) {
          throw conflict(`Attempt ${command.attempt} of statement batch ${batchId ?? '?'} is stale`);
        }
        const { outcome, attempt, at } = command;
        switch (outcome.kind) {
          case 'created':
            return [{ type: 'StatementBatchSubmitted', data: { batchId, attempt, status: outcome.status, alreadyInDatabase: [], submittedAt: at } }];
          case 'existing': {
            const existing = new Set(outcome.puids);
            const known = state.remaining.map((s) => String(s['puid'])).filter((p) => existing.has(p));
            if (known.length === state.remaining.length) {
              return [{ type: 'StatementBatchSubmitted', data: { batchId, attempt, status: outcome.status, alreadyInDatabase: known, submittedAt: at } }];
            }
            // The rest is sent again at once: the Database created none of the batch.
            const error =
              known.length === 0
                ? 'The Database reported PUIDs already there that are not in this batch'
                : `${known.length} statement(s) already in the Database`;
            const nextAttemptAt = known.length === 0 ? null : at;
            const failed: StatementBatchEvent = {
              type: 'StatementBatchAttemptFailed',
              data: { batchId, attempt, status: outcome.status, error, retryAfterMs: null, alreadyInDatabase: known, attemptedAt: at, nextAttemptAt },
            };
            if (nextAttemptAt !== null) return [failed];
            return [failed, { type: 'StatementBatchRejected', data: { batchId, attempt, status: outcome.status, error, rejectedAt: at } }];
          }
          case 'refused':
            return [{ type: 'StatementBatchRejected', data: { batchId, attempt, status: outcome.status, error: outcome.error, rejectedAt: at } }];
          case 'failed': {
            const delay = batchRetryDelayMs(command.schedule, state.failures + 1, command.random, outcome.retryAfterMs);
            const failed: StatementBatchEvent = {
              type: 'StatementBatchAttemptFailed',
              data: {
                batchId,
                attempt,
                status: outcome.status,
                error: outcome.error,
                retryAfterMs: outcome.retryAfterMs,
                alreadyInDatabase: [],
                attemptedAt: at,
                nextAttemptAt: delay === undefined ? null : plus(at, delay),
              },
            };
            if (delay !== undefined) return [failed];
            return [
              failed,
              {
                type: 'StatementBatchAbandoned',
                data: { batchId, attempts: attempt, reason: `All ${attempt} attempts failed; the last: ${outcome.error}`, abandonedAt: at },
              },
            ];
          }
        }
      }
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'StatementBatchRequested':
        return {
          status: 'pending',
          batchId: event.data.batchId,
          remaining: event.data.bodies,
          attempts: 0,
          failures: 0,
          nextAttemptAt: event.data.nextAttemptAt,
        };
      case 'StatementBatchAttemptFailed': {
        const known = new Set(event.data.alreadyInDatabase);
        return {
          ...state,
          status: 'retrying',
          remaining: known.size === 0 ? state.remaining : state.remaining.filter((s) => !known.has(String(s['puid']))),
          attempts: event.data.attempt,
          failures: known.size === 0 ? state.failures + 1 : state.failures,
          nextAttemptAt: event.data.nextAttemptAt,
        };
      }
      case 'StatementBatchSubmitted':
        return { ...state, status: 'submitted', remaining: [], attempts: event.data.attempt, nextAttemptAt: null };
      case 'StatementBatchRejected':
        return { ...state, status: 'rejected', attempts: event.data.attempt, nextAttemptAt: null };
      case 'StatementBatchAbandoned':
        return { ...state, status: 'abandoned', nextAttemptAt: null };
    }
  },
};
