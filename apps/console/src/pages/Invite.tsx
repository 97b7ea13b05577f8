import { type FormEvent, useState } from 'react';
import { Link } from 'react-router';
import { api, ApiError, ok } from '../api/client';
import { ErrorNote } from '../components/ErrorNote';

interface Failure {
  readonly message: string;
  /** The server's reason when it refused the password itself (pointer `/password`): shown at the field. */
  readonly password: string | null;
}

/** The invitation link (`/console/invite#<token>`): the invited person chooses a password. */
export function Invite() {
  const token = location.hash.replace(/^#/, '');
  const [password, setPassword] = useState('');
  const [again, setAgain] = useState('');
  const [failure, setFailure] = useState<Failure | null>(null);
  const [done, setDone] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (password !== again) {
      setFailure({ message: 'The two passwords differ.', password: null });
      return;
    }
    setFailure(null);
    try {
      await ok(api.POST('/api/console/v1/invitations/accept', { body: { token, password } }));
      setDone(true);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      setFailure({ message, password: error instanceof ApiError && error.pointer === '/password' ? message : null });
    }
  }

  // The refusal is read out where the person fixes it: tied to the field, which is marked invalid.
  const invalid = failure?.password
    ? { 'aria-invalid': true as const, 'aria-describedby': 'password-hint password-error' }
    : { 'aria-describedby': 'password-hint' };
  return (
    <main id="main" className="signin">
      <h1>Set your password</h1>
      {done ? (
        <p role="status">
          Your password is set. <Link to="/">Sign in</Link>
        </p>
      ) : !token ? (
        <p role="alert">This link has no invitation token; open the link exactly as you received it.</p>
      ) : (
        <form onSubmit={submit}>
          <label>
            New password (at least 12 characters)
            <input
              type="password"
              autoComplete="new-password"
              minLength={12}
              required
              value={password}
              onChange={(e) => setPassword(e.target.value)}
              {...invalid}
            />
          </label>
          <p className="muted field-hint" id="password-hint">
            A passphrase of a few words works well. Common or breached passwords, repeated patterns and your email address are refused.
          </p>
          {failure?.password && (
            <p className="error field-error" id="password-error" role="alert">
              {failure.password}
            </p>
          )}
          <label>
            The same password again
            <input type="password" autoComplete="new-password" required value={again} onChange={(e) => setAgain(e.target.value)} />
          </label>
          <button type="submit">Set password</button>
        </form>
      )}
      {/* A refusal of the password is said once, at its field; any other failure here. */}
      <ErrorNote error={failure && !failure.password ? failure.message : null} />
    </main>
  );
}
