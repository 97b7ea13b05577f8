import type { Decider } from '#warden/kernel';
import type { ErasedCounts, ErasedUser, GdprDeletionEvent } from './gdpr-deletion.events.js';

export interface RequestGdprDeletion {
  readonly type: 'RequestGdprDeletion';
  readonly requestId: string;
  readonly user: ErasedUser;
  readonly subject: string;
  /** The same person's console account, or null. */
  readonly consoleUserId: string | null;
  readonly now: string;
}

export interface CompleteGdprDeletion {
  readonly type: 'CompleteGdprDeletion';
  readonly erased: ErasedCounts;
  readonly now: string;
}

export type GdprDeletionCommand = RequestGdprDeletion | CompleteGdprDeletion;

export interface GdprDeletionState {
  readonly status: 'NONE' | 'PENDING' | 'COMPLETED';
  readonly requestId: string | null;
  readonly user: ErasedUser | null;
  readonly subject: string | null;
  readonly consoleUserId: string | null;
  readonly requestedAt: string | null;
  readonly completedAt: string | null;
  readonly erased: ErasedCounts | null;
}

/**
 * A user's deletion: requested once (the same user again, pending or completed, records nothing
 * and is answered with the same request id), completed once by the erasure reactor (a re-run
 * after a crash records nothing more).
 */
export const gdprDeletionDecider: Decider<GdprDeletionCommand, GdprDeletionState, GdprDeletionEvent> = {
  eventTypes: { GdprDeletionRequested: true, GdprDeletionCompleted: true },
  initialState: { status: 'NONE', requestId: null, user: null, subject: null, consoleUserId: null, requestedAt: null, completedAt: null, erased: null },

  decide(command, state) {
    switch (command.type) {
      case 'RequestGdprDeletion':
        if (state.status !== 'NONE') return [];
        return [
          {
            type: 'GdprDeletionRequested',
            data: {
              requestId: command.requestId,
              user: { ...command.user },
              subject: command.subject,
              ...(command.consoleUserId === null ? {} : { consoleUserId: command.consoleUserId }),
              requestedAt: command.now,
            },
          },
        ];
      case 'CompleteGdprDeletion':
        if (state.status !== 'PENDING' || !state.requestId || !state.user || !state.subject) return [];
        return [
          {
            type: 'GdprDeletionCompleted',
            data: {
              requestId: state.requestId,
              user: { ...state.user },
              subject: state.subject,
              ...(state.consoleUserId === null ? {} : { consoleUserId: state.consoleUserId }),
              erased: { ...command.erased },
              completedAt: command.now,
            },
          },
        ];
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'GdprDeletionRequested':
        return {
          ...state,
          status: 'PENDING',
          requestId: event.data.requestId,
          user: event.data.user,
          subject: event.data.subject,
          consoleUserId: event.data.consoleUserId ?? null,
          requestedAt: event.data.requestedAt,
        };
      case 'GdprDeletionCompleted':
        return { ...state, status: 'COMPLETED', completedAt: event.data.completedAt, erased: event.data.erased };
    }
  },
};
