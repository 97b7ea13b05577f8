import { useCallback, useEffect, useState } from 'react';
import { ApiError } from '../api/client';
import { useSession } from './session';

export interface Loaded<T> {
  readonly data: T | undefined;
  readonly error: string | null;
  readonly loading: boolean;
  reload(): void;
}

/**
 * Loads once per change of `deps` and on reload(); a 401 ends the session (the sign-in screen
 * shows), any other failure is kept as words for the page to show.
 */
export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[]): Loaded<T> {
  const session = useSession();
  const [data, setData] = useState<T>();
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setLoading(true);
    load().then(
      (value) => {
        if (!live) return;
        setData(value);
        setError(null);
        setLoading(false);
      },
      (failure: unknown) => {
        if (!live) return;
        if (failure instanceof ApiError && failure.status === 401) session.expired();
        setError(failure instanceof Error ? failure.message : String(failure));
        setLoading(false);
      },
    );
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the caller names what loads again (deps); load itself is a new closure every render
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data, error, loading, reload };
}

/** Runs an action, keeping its failure as words; a 401 ends the session. */
export function useAction() {
  const session = useSession();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const run = useCallback(
    async <T>(action: () => Promise<T>): Promise<T | undefined> => {
      setBusy(true);
      setError(null);
      try {
        return await action();
      } catch (failure) {
        if (failure instanceof ApiError && failure.status === 401) session.expired();
        setError(failure instanceof Error ? failure.message : String(failure));
        return undefined;
      } finally {
        setBusy(false);
      }
    },
    [session],
  );
  return { run, error, busy, setError };
}
