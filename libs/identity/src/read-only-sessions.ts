import { Inject, Injectable } from '@nestjs/common';
import type { Decider, DomainEvent } from '#warden/kernel';
import { WARDEN_CONFIG, type WardenConfig } from '#warden/platform';
import type { OpenSession } from './domain/user.decider.js';

/** A console session of a read-only server: the user it belongs to and what the user's aggregate would hold. */
export interface ReadOnlySession extends OpenSession {
  readonly orgId: string;
  readonly userId: string;
  readonly sessionId: string;
}

/**
 * What a read-only server (WARDEN_READ_ONLY: a replayed data directory) keeps in memory instead of
 * appending to its log, which must stay the copy checked against the recorded chain (docs/audit.md,
 * "Replay"): console sessions, and second-factor states with their spent codes. They end with the
 * process; nothing of them reaches the log, and the log refuses appends anyway (ReadOnlyEventStore).
 */
@Injectable()
export class ReadOnlySessions {
  /** Open sessions by token hash. */
  private readonly sessions = new Map<string, ReadOnlySession>();
  /** States changed in memory (a second factor's spent step), by stream. */
  private readonly states = new Map<string, unknown>();

  constructor(@Inject(WARDEN_CONFIG) private readonly config: Pick<WardenConfig, 'readOnly'>) {}

  /** True on a read-only server: callers keep their changes here rather than append them. */
  get active(): boolean {
    return this.config.readOnly;
  }

  open(session: ReadOnlySession): void {
    this.sessions.set(session.tokenHash, session);
  }

  find(tokenHash: string): ReadOnlySession | undefined {
    return this.sessions.get(tokenHash);
  }

  close(orgId: string, userId: string, sessionId: string): void {
    for (const [hash, s] of this.sessions) if (s.orgId === orgId && s.userId === userId && s.sessionId === sessionId) this.sessions.delete(hash);
  }

  /**
   * Decides a command on the stream's state (as changed in memory before, else as the log has it)
   * and keeps the resulting state in memory: the decider refuses what it would refuse on the log.
   */
  decide<C, S, E extends DomainEvent<string, object>>(stream: string, decider: Decider<C, S, E>, logState: S, command: C): E[] {
    const state = (this.states.has(stream) ? this.states.get(stream) : logState) as S;
    const events = decider.decide(command, state);
    this.states.set(stream, events.reduce(decider.evolve, state));
    return events;
  }

  /** The stream's state as changed in memory, if it was. */
  state<S>(stream: string, logState: S): S {
    return (this.states.has(stream) ? this.states.get(stream) : logState) as S;
  }
}
