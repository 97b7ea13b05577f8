/** How long a test waits for a state before failing: generous, so a slow machine never fails a correct system. */
export const DEFAULT_WAIT_MS = 20_000;

export interface WaitOptions {
  /** What is awaited, for the failure message ("the CallbackDelivered of d-1"). */
  readonly what: string;
  readonly timeoutMs?: number;
  /** The pause between two probes; it paces the polling, it is never what a test waits for. */
  readonly intervalMs?: number;
}

type NotYet = undefined | null | false;

/**
 * Polls `probe` until it returns something other than undefined, null or false, and returns
 * that. A probe that throws fails the wait at once: a wrong answer is not a state to wait out.
 */
export async function waitFor<T>(probe: () => T | NotYet | Promise<T | NotYet>, options: WaitOptions | string): Promise<T> {
  const { what, timeoutMs = DEFAULT_WAIT_MS, intervalMs = 20 } = typeof options === 'string' ? { what: options } : options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== null && value !== false) return value as T;
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
