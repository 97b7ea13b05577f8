import { useEffect, useState } from 'react';
import { NavLink, Outlet } from 'react-router';
import { RECENT_SIGN_IN_REQUIRED_EVENT } from '../api/client';
import { REAUTH_REQUESTED } from './reauth';
import { useAction } from './use-load';
import { type Permission, useSession } from './session';
import { ErrorNote } from '../components/ErrorNote';
import { SignIn } from '../pages/SignIn';

/** The console's pages, each shown only to those holding its permission. */
export const NAV: ReadonlyArray<{ to: string; label: string; permission: Permission }> = [
  { to: '/queues', label: 'Queues', permission: 'VIEW_MRT' },
  { to: '/jobs', label: 'Jobs', permission: 'MANAGE_MRT_JOBS' },
  { to: '/queue-settings', label: 'Queue settings', permission: 'EDIT_MRT_QUEUES' },
  { to: '/rules', label: 'Rules', permission: 'VIEW_RULES' },
  { to: '/users', label: 'Users', permission: 'MANAGE_USERS' },
  { to: '/api-keys', label: 'API keys', permission: 'MANAGE_API_KEYS' },
  { to: '/sso', label: 'SSO', permission: 'MANAGE_SSO' },
  { to: '/deliveries', label: 'Callbacks', permission: 'MANAGE_CALLBACKS' },
  { to: '/transparency', label: 'Transparency', permission: 'VIEW_INSIGHTS' },
  { to: '/insights', label: 'Insights', permission: 'VIEW_INSIGHTS' },
  { to: '/investigate', label: 'Investigate', permission: 'INVESTIGATE' },
  { to: '/bulk-actions', label: 'Bulk actions', permission: 'BULK_ACTIONS' },
];

export function Layout() {
  const session = useSession();
  const signOut = useAction();
  const [signInAgain, setSignInAgain] = useState(false);
  useEffect(() => {
    const show = () => setSignInAgain(true);
    window.addEventListener(RECENT_SIGN_IN_REQUIRED_EVENT, show);
    return () => window.removeEventListener(RECENT_SIGN_IN_REQUIRED_EVENT, show);
  }, []);
  // A new sign-in starts without the notice.
  useEffect(() => setSignInAgain(false), [session.user]);
  if (session.user === undefined) return <p className="loading">Loading…</p>;
  if (session.user === null) return <SignIn />;
  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <span className="brand">Warden</span>
        <nav aria-label="Console">
          <ul>
            {NAV.filter((entry) => session.can(entry.permission)).map((entry) => (
              <li key={entry.to}>
                <NavLink to={entry.to}>{entry.label}</NavLink>
              </li>
            ))}
          </ul>
        </nav>
        <span className="who">
          <span className="sr-only">Signed in as </span>
          {session.user.email ?? session.user.id} · {session.user.orgId}
        </span>
        <button type="button" onClick={() => void signOut.run(() => session.signOut())} disabled={signOut.busy}>
          Sign out
        </button>
      </header>
      <ErrorNote error={signOut.error} />
      {signInAgain && (
        <div className="notice" role="alert">
          <p>Changes to API keys, users and roles, second factors, SSO and bulk actions need a recent sign-in. Sign in again, then repeat the change.</p>
          <button
            type="button"
            onClick={() => {
              sessionStorage.setItem(REAUTH_REQUESTED, '1');
              void signOut.run(() => session.signOut());
            }}
            disabled={signOut.busy}
          >
            Sign in again
          </button>
        </div>
      )}
      <main id="main" tabIndex={-1}>
        <Outlet />
      </main>
    </>
  );
}
