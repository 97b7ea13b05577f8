import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useRef, useState } from 'react';
import { api, ApiError, ok, type Schemas, setCsrfToken } from '../api/client';

export type Permission = Schemas['ConsoleUserDto']['permissions'][number];
export type ConsoleUser = Schemas['ConsoleUserDto'];
type SessionBody = Schemas['ConsoleSessionResponseDto'];

interface Session {
  /** undefined while the first /me is in flight; null when signed out. */
  readonly user: ConsoleUser | null | undefined;
  readonly enrollmentRequired: boolean;
  can(permission: Permission): boolean;
  signedIn(body: SessionBody): void;
  signOut(): Promise<void>;
  /** Runs `hook` before signing out (giving a lock back needs the session); returns the unsubscribe. */
  beforeSignOut(hook: () => Promise<void>): () => void;
  /** A 401 from any call: the session ended (expired, signed out elsewhere). */
  expired(): void;
}

const SessionContext = createContext<Session | null>(null);

export function SessionProvider({ children }: { children: ReactNode }) {
  const [user, setUser] = useState<ConsoleUser | null | undefined>(undefined);
  const [enrollmentRequired, setEnrollment] = useState(false);

  const signedIn = useCallback((body: SessionBody) => {
    setCsrfToken(body.csrfToken);
    setEnrollment(body.secondFactorEnrollmentRequired === true);
    setUser(body.user);
  }, []);
  const expired = useCallback(() => {
    setCsrfToken(null);
    setUser(null);
  }, []);

  // The session cookie is HttpOnly: whether we are signed in (after a password or an SSO
  // sign-in, or a reload) is only known by asking.
  useEffect(() => {
    // GET session answers 200 either way, so a signed-out start logs no failed request.
    ok(api.GET('/api/console/v1/session')).then(
      (state) =>
        state.signedIn && state.user && state.csrfToken
          ? signedIn({ user: state.user, csrfToken: state.csrfToken, secondFactorEnrollmentRequired: state.secondFactorEnrollmentRequired })
          : expired(),
      () => expired(),
    );
  }, [signedIn, expired]);

  const hooks = useRef(new Set<() => Promise<void>>());
  const beforeSignOut = useCallback((hook: () => Promise<void>) => {
    hooks.current.add(hook);
    return () => void hooks.current.delete(hook);
  }, []);

  const signOut = useCallback(async () => {
    await Promise.all([...hooks.current].map((hook) => hook().catch(() => undefined)));
    try {
      await ok(api.DELETE('/api/console/v1/session'));
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 401)) throw error;
    }
    expired();
  }, [expired]);

  const value = useMemo<Session>(
    () => ({
      user,
      enrollmentRequired,
      can: (permission) => user?.permissions.includes(permission) ?? false,
      signedIn,
      signOut,
      beforeSignOut,
      expired,
    }),
    [user, enrollmentRequired, signedIn, signOut, beforeSignOut, expired],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside SessionProvider');
  return session;
}
