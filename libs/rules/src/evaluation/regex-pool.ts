import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { FairSlots } from '#warden/kernel';
import type { RegexTask } from './regex-match.worker.js';

/**
 * How long one match may take on the pool's thread before it is given up (and the thread with it).
 * RE2 is linear in the text, so a text of at most 1 MiB (MAX_TEXT_LENGTH) against the costliest
 * patterns measured takes under 2 s (docs/rules.md, "Evaluation"), and V8's engine on a list of
 * literal terms (term-matcher.ts) about as long; this bounds the rest.
 */
export const REGEX_DEADLINE_MS = 10_000;

/** An idle thread ends after this long: most organizations never send a text long enough to need it. */
const IDLE_MS = 60_000;

/**
 * The patterns given an id (what a task names instead of copying the pattern to the thread each
 * time): at most this many, of this many characters in all, the least recently used forgotten
 * first. Twice the thread's own budget (MAX_COMPILED_CHARS): the strings are mostly those the
 * live rules' matchers hold anyway; a forgotten one gets a new id and is compiled again.
 */
const MAX_PATTERN_IDS = 1_000;
const MAX_PATTERN_ID_CHARS = 8 * 1024 * 1024;

/** Where the worker is: beside this module in `dist/` and in the bundle (an entry of its own); the `.ts` when the tests run the sources. */
const WORKER = new URL(import.meta.url.endsWith('.ts') ? './regex-match.worker.ts' : './regex-match.worker.js', import.meta.url);

export class RegexDeadlineError extends Error {
  constructor(deadlineMs: number, length: number) {
    super(`the regular expression did not finish within ${deadlineMs} ms on a text of ${length} characters`);
    this.name = 'RegexDeadlineError';
  }
}

/** The regex thread could not run the match (it failed to start, or the server is stopping). */
export class RegexThreadError extends Error {
  constructor(cause: unknown) {
    super(`the regex thread could not run the match: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'RegexThreadError';
  }
}

/** Why a match was aborted: its deadline passed (DEADLINE), or its thread failed (ThreadFailure, with the thread's error). */
const DEADLINE = Symbol('deadline');
class ThreadFailure {
  constructor(readonly cause: unknown) {}
}

export interface RegexPoolOptions {
  readonly deadlineMs?: number;
  /** The thread's module (the tests' broken and forgetful ones); WORKER otherwise. */
  readonly worker?: URL;
}

/**
 * TEXT_MATCHES_REGEX's and TEXT_BANK's regexes past an evaluation's in-place budget, and term lists
 * too large to match in place, on a thread of its own (docs/rules.md, "Evaluation"). RE2 costs
 * time in proportion to the text and to the pattern: a customer's `.{0,1000}` over a 1 MiB text
 * takes nearly 2 s. Matched where the items are evaluated, that held every organization's
 * evaluations (one thread evaluates them all) and, on `sync` content requests, the HTTP thread.
 * Here it takes one thread of the pool, bounded by a deadline, while the evaluating thread goes
 * on with other items. One thread: the server's own threads already share the cores; the
 * matches wait their turn, as many as the evaluations in flight, organizations taking turns.
 */
@Injectable()
export class RegexPool implements OnApplicationShutdown {
  private readonly logger = new Logger('rules');
  private pool: Piscina<RegexTask, boolean | null> | undefined;
  /** Each pattern's id, in order of use (PatternIds). */
  private readonly ids = new PatternIds();
  /** The ids whose pattern the current thread was sent: a new thread (after a deadline, a failure) has none. */
  private sent = new Set<string>();
  /** Characters of patterns copied to the thread so far (what naming them by id saves; the spec counts it). */
  patternCharsPosted = 0;
  /**
   * The thread, one match at a time, the organizations waiting taking turns (FairSlots of one: a
   * freed turn goes to the next organization waiting, which then goes behind the others).
   */
  private readonly turns = new FairSlots(1);
  private closed = false;
  /** Ends the running match with the thread's own failure (its 'error' event: no task of its own to fail). */
  private failRunning: ((error: unknown) => void) | undefined;
  private readonly deadlineMs: number;
  private readonly worker: URL;

  constructor(options: RegexPoolOptions = {}) {
    this.deadlineMs = options.deadlineMs ?? REGEX_DEADLINE_MS;
    this.worker = options.worker ?? WORKER;
  }

  /**
   * True when `pattern` (a regex the caller compiled once, so known to be valid, or its quoted terms) matches
   * anywhere in `text`. Matches run one after another, the organizations waiting taking turns, so
   * that one organization's burst of long texts delays another's match by at most one match of each
   * organization ahead of it. Each runs within the deadline from when it starts (the thread's own
   * start included: about 50 ms): a match waiting behind others is not given up for their time (a
   * burst would otherwise decide nothing). Rejects with RegexDeadlineError past it: the thread
   * running it is ended (a match cannot be interrupted otherwise) and the next match starts a new
   * one; with RegexThreadError when the thread failed, or the server is stopping.
   */
  async test(orgId: string, pattern: string, text: string): Promise<boolean> {
    if (this.closed) throw new RegexThreadError('the server is stopping');
    const release = await this.turns.acquire(orgId);
    try {
      // Stopped while this match waited: what waits fails, one after the other, as the thread ends.
      if (this.closed) throw new RegexThreadError('the server is stopping');
      return await this.run(pattern, text);
    } finally {
      release();
    }
  }

  private async run(pattern: string, text: string): Promise<boolean> {
    // One controller and one timer a match (AbortSignal.timeout and AbortSignal.any cost about a
    // third of the hop to the thread): aborted by the deadline or by the thread's failure, which
    // the reason tells apart.
    const abort = new AbortController();
    const deadline = setTimeout(() => abort.abort(DEADLINE), this.deadlineMs);
    this.failRunning = (error) => abort.abort(new ThreadFailure(error));
    const { signal } = abort;
    try {
      const id = this.ids.of(pattern);
      const threads = this.threads();
      if (this.sent.has(id)) {
        const matched = await threads.run({ id, chars: pattern.length, text }, { signal });
        if (matched !== null) return matched;
        // The thread no longer has it (it ended idle and another started, or it dropped it for others).
        this.sent.delete(id);
      }
      this.patternCharsPosted += pattern.length;
      const matched = await threads.run({ id, chars: pattern.length, pattern, text }, { signal });
      if (matched === null) throw new Error(`the regex thread answered nothing for pattern ${id} it was sent`);
      if (this.pool === threads) {
        // Ids of patterns since forgotten linger; the thread answers for any it lacks, so starting over costs one copy of each pattern in use.
        if (this.sent.size >= MAX_PATTERN_IDS) this.sent.clear();
        this.sent.add(id);
      }
      return matched;
    } catch (error) {
      if (signal.reason instanceof ThreadFailure) throw new RegexThreadError(signal.reason.cause);
      if (signal.reason === DEADLINE) throw new RegexDeadlineError(this.deadlineMs, text.length);
      throw error;
    } finally {
      clearTimeout(deadline);
      this.failRunning = undefined;
    }
  }

  private threads(): Piscina<RegexTask, boolean | null> {
    if (this.pool) return this.pool;
    this.sent = new Set();
    const pool = new Piscina<RegexTask, boolean | null>({
      filename: fileURLToPath(this.worker),
      minThreads: 0,
      maxThreads: 1,
      idleTimeout: IDLE_MS,
    });
    // A thread that fails with no task of its own (its module cannot load) is reported here, not
    // to the match waiting for it: unheard, the event would end the process.
    pool.on('error', (error: unknown) => {
      this.logger.error({ msg: 'the regex thread failed', error: String(error) });
      if (this.pool === pool) this.pool = undefined;
      void pool.destroy().catch(() => undefined);
      this.failRunning?.(error);
    });
    this.pool = pool;
    return pool;
  }

  /**
   * After the projections and reactors have stopped (StorageModule's beforeApplicationShutdown):
   * nothing evaluates any more. What still waits (a `sync` request's match) fails, and the thread ends.
   */
  async onApplicationShutdown(): Promise<void> {
    this.closed = true;
    const pool = this.pool;
    this.pool = undefined;
    await pool?.destroy();
  }
}

/**
 * A pattern's id from its text: its SHA-256 (of its UTF-16 code units, so that lone surrogates do
 * not meet in U+FFFD), base64url. The same pattern always has the same id, so
 * a pattern whose id was forgotten here (past MAX_PATTERN_ID_CHARS) and asked again names what the
 * thread still has compiled: with numbers handed out in turn, ten rules of 100,000 terms each (9 Mi
 * characters) had their ids forgotten and reissued over and over, and the thread compiled each list
 * again and again, holding every copy for a minute (resident memory 2.4 → 4.6 GB in a minute). The
 * task also carries the pattern's length, which the thread compares with what it compiled.
 */
export function patternId(pattern: string): string {
  return createHash('sha256').update(pattern, 'utf16le').digest('base64url');
}

/** Ids for patterns, by the pattern's text (PatternIds.of), within MAX_PATTERN_IDS and MAX_PATTERN_ID_CHARS. */
class PatternIds {
  private readonly byPattern = new Map<string, string>();
  private chars = 0;

  /**
   * The pattern's id (patternId), remembered: the same pattern is mostly the same string, whose hash
   * V8 keeps, so a look-up does not read a million characters again.
   */
  of(pattern: string): string {
    const known = this.byPattern.get(pattern);
    if (known !== undefined) {
      this.byPattern.delete(pattern);
      this.byPattern.set(pattern, known);
      return known;
    }
    const id = patternId(pattern);
    this.byPattern.set(pattern, id);
    this.chars += pattern.length;
    for (const oldest of this.byPattern.keys()) {
      if (oldest === pattern || (this.byPattern.size <= MAX_PATTERN_IDS && this.chars <= MAX_PATTERN_ID_CHARS)) break;
      this.byPattern.delete(oldest);
      this.chars -= oldest.length;
    }
    return id;
  }
}
