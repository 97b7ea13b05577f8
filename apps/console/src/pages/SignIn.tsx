import { type FormEvent, useState } from 'react';
import { api, ApiError, ok } from '../api/client';
import { useSession } from '../app/session';
import { ErrorNote } from '../components/ErrorNote';
import { REAUTH_REQUESTED } from '../app/reauth';

/** As the server's (libs/kernel ids.ts ORG_ID): 1 to 63 of a-z, 0-9, - and _, not starting with - or _. */
const ORG_ID = /^[a-z0-9][a-z0-9_-]{0,62}$/;
const LAST_SSO_ORG = 'warden.sso-org';

/** Email and password (with a second factor when the account has one), or the organization's SSO. */
export function SignIn() {
  const session = useSession();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [totp, setTotp] = useState('');
  const [needsCode, setNeedsCode] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [orgId, setOrgId] = useState(() => new URLSearchParams(location.search).get('org') ?? localStorage.getItem(LAST_SSO_ORG) ?? '');

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const body = await ok(api.POST('/api/console/v1/session', { body: { email, password, ...(needsCode && totp ? { totp } : {}) } }));
      session.signedIn(body);
    } catch (failure) {
      if (failure instanceof ApiError && failure.type === '/errors/second-factor-required') {
        setNeedsCode(true);
        setError('Enter the 6-digit code from your authenticator app.');
      } else {
        setError(failure instanceof Error ? failure.message : String(failure));
      }
    } finally {
      setBusy(false);
    }
  }

  function sso(event: FormEvent) {
    event.preventDefault();
    if (!ORG_ID.test(orgId)) {
      setError('Organization ID: lowercase letters, digits, dashes and underscores (for example acme).');
      return;
    }
    localStorage.setItem(LAST_SSO_ORG, orgId);
    // The server's confirmation page names the organization's IdP before the browser goes there
    // (docs/sso.md, "Starting a sign-in"). After a recent-sign-in refusal, the IdP is asked to
    // authenticate the user again rather than reuse its own session.
    const reauth = sessionStorage.getItem(REAUTH_REQUESTED) === '1';
    sessionStorage.removeItem(REAUTH_REQUESTED);
    location.assign(`/saml/login/${orgId}${reauth ? '?reauth=1' : ''}`);
  }

  return (
    <main id="main" className="signin">
      <h1>Warden review console</h1>
      <form onSubmit={submit} aria-labelledby="password-heading">
        <h2 id="password-heading">Sign in</h2>
        <label>
          Email
          <input type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />
        </label>
        <label>
          Password
          <input type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
        </label>
        {needsCode && (
          <label>
            Authenticator code
            <input inputMode="numeric" autoComplete="one-time-code" value={totp} onChange={(e) => setTotp(e.target.value)} autoFocus />
          </label>
        )}
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
      <form onSubmit={sso} aria-labelledby="sso-heading">
        <h2 id="sso-heading">Single sign-on</h2>
        <label>
          Organization ID
          <input value={orgId} onChange={(e) => setOrgId(e.target.value.trim())} placeholder="acme" autoCapitalize="none" />
        </label>
        <button type="submit">Sign in with SSO</button>
      </form>
      <ErrorNote error={error} />
    </main>
  );
}
