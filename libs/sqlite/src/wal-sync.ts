import { open } from 'node:fs/promises';

/** One fdatasync of the WAL in flight, and the highest log position committed before it started. */
interface Round {
  covers: number;
  readonly done: Promise<void>;
}

const RESOLVED = Promise.resolve();

/**
 * Makes the commits of a WAL-mode connection durable without holding the event loop.
 *
 * At `synchronous = FULL` SQLite syncs the WAL inside COMMIT, on the calling thread: every request,
 * timer and reactor of the process waits for the disk, for milliseconds on a quiet disk and for
 * hundreds of them on a busy one (docs/benchmarks.md, "Single-item submissions under load"). The
 * log's connection commits at `NORMAL` instead (no sync in COMMIT; WAL mode stays consistent) and
 * this class syncs the WAL file on libuv's thread pool. One fdatasync makes every frame written
 * before it started durable, whichever connection or process wrote it, so rounds are shared: a
 * caller joins the round in flight when that round already covers its position, or the next one.
 *
 * Callers: the group commit settles an append only after the round covering it (an acknowledged
 * append survives a power loss, as with FULL), and readers of the log wait for the same before they
 * act on events (docs/architecture.md, "Write side").
 */
export class WalSync {
  private durable = 0;
  private inFlight: Round | undefined;
  private queued: Round | undefined;

  /**
   * `committedHead` (optional): the highest position committed so far. A round covers it as well as
   * what it was asked for, since every commit before the round started is on disk after it: one
   * round then serves a reader catching up over many batches, instead of one round per batch.
   */
  constructor(
    private readonly syncFile: () => Promise<void>,
    private readonly release: () => Promise<void> = async () => undefined,
    private readonly committedHead: () => number = () => 0,
  ) {}

  /**
   * For the database file `file`: syncs `<file>-wal` through a descriptor of its own, opened at the
   * first round (SQLite creates the WAL at the first write) and kept open while the connection is:
   * the WAL's inode stays the same while any connection is open, and closing a descriptor of a
   * file SQLite has locked would drop the process's locks on it.
   */
  static forDatabase(file: string, committedHead?: () => number): WalSync {
    let handle: ReturnType<typeof open> | undefined;
    return new WalSync(
      async () => {
        handle ??= open(`${file}-wal`, 'r');
        await (await handle).datasync();
      },
      async () => {
        const opened = await handle?.catch(() => undefined);
        handle = undefined;
        await opened?.close();
      },
      committedHead,
    );
  }

  /** After the connection's last commit: waits for the rounds asked for, then lets the descriptor go. */
  async close(): Promise<void> {
    await Promise.allSettled([this.inFlight?.done, this.queued?.done]);
    await this.release();
  }

  /** Resolves once every log position up to `position` (already committed) is on disk. */
  ensure(position: number): Promise<void> {
    if (position <= this.durable) return RESOLVED;
    if (this.inFlight === undefined) return this.start(position).done;
    // The round in flight started after `position` was committed only if it was asked to cover it.
    if (this.inFlight.covers >= position) return this.inFlight.done;
    if (this.queued) {
      this.queued.covers = Math.max(this.queued.covers, position);
      return this.queued.done;
    }
    const after = this.inFlight.done.catch(() => undefined);
    const queued: Round = {
      covers: position,
      done: after.then(() => {
        this.queued = undefined;
        return this.start(queued.covers).done;
      }),
    };
    this.queued = queued;
    return queued.done;
  }

  private start(asked: number): Round {
    const round: Round = {
      covers: Math.max(asked, this.committedHead()),
      done: this.syncFile()
        .then(() => {
          this.durable = Math.max(this.durable, round.covers);
        })
        .finally(() => {
          if (this.inFlight === round) this.inFlight = undefined;
        }),
    };
    this.inFlight = round;
    return round;
  }
}
