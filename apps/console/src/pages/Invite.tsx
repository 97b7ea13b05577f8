import { type FormEvent, useState } from 'react';
import { Link } from 'react-router';
import { api, ok } from '../api/client';
import { ErrorNote } from '../components/ErrorNote';

/** The invitation link (`/console/invite#<token>`): the invited person chooses a password. */
export function Invite() {
  const token = location.hash.replace(/^#/, '');
  const [password, setPassword] = useState('');
  const [again, setAgain] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (password !== again) {
      setError('The two passwords differ.');
      return;
    }
    setError(null);
    try {
      await ok(api.POST('/api/console/v1/invitations/accept', { body: { token, password } }));
      setDone(true);
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    }
  }

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
            <input type="password" autoComplete="new-password" minLength={12} required value={password} onChange={(e) => setPassword(e.target.value)} />
          </label>
          <label>
            The same password again
            <input type="password" autoComplete="new-password" required value={again} onChange={(e) => setAgain(e.target.value)} />
          </label>
          <button type="submit">Set password</button>
        </form>
      )}
      <ErrorNote error={error} />
    </main>
  );
}
