/**
 * Runs tasks of one key one after another, tasks of different keys at once. The strike appliers of
 * a process (the strikes reactor, the delivery reactor's asks for a whole batch) would otherwise all
 * read one user's stream, decide, and race to append: every loser re-reads and retries, so a burst
 * on one user costs quadratic reads and most of them are wasted. Queued, each application reads
 * once and appends once; other processes still meet the expected-revision check.
 */
export class PerStreamQueue {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const next = previous.then(task, task);
    const tail = next.catch(() => undefined);
    this.tails.set(key, tail);
    // The last task of a key removes it, so the map holds only keys with work queued.
    void tail.then(() => this.tails.get(key) === tail && this.tails.delete(key));
    return next;
  }
}
