import { type FormEvent, useState } from 'react';
import { api, ok, type Schemas } from '../../api/client';
import { when } from '../../app/format';
import { useAction, useLoad } from '../../app/use-load';
import { ConfirmButton } from '../../components/ConfirmButton';
import { ErrorNote } from '../../components/ErrorNote';
import { OneTimeSecret } from '../../components/OneTimeSecret';
import { Notice, PageHead } from '../../components/PageHead';
import { TableHead } from '../../components/TableHead';

type Key = Schemas['ApiKeyDto'];
type Created = Schemas['CreatedApiKeyResponseDto'];

/** A secret just made, with why it is shown. */
interface Fresh {
  readonly title: string;
  readonly key: Created;
}

const SECRET_WARNING = 'This is the only time the key is shown: Warden keeps only its hash. Copy it into your platform’s secret store now.';

function CreateKeyForm({ onCreated }: { onCreated(key: Created): void }) {
  const action = useAction();
  const [name, setName] = useState('');
  const [team, setTeam] = useState('');
  async function submit(event: FormEvent) {
    event.preventDefault();
    const created = await action.run(() =>
      ok(api.POST('/api/console/v1/api-keys', { body: { ...(name.trim() ? { name: name.trim() } : {}), ...(team.trim() ? { team: team.trim() } : {}) } })),
    );
    if (created) {
      setName('');
      setTeam('');
      onCreated(created);
    }
  }
  return (
    <form className="card" onSubmit={submit} aria-labelledby="new-key-heading">
      <h2 id="new-key-heading">Create a key</h2>
      <label>
        Name
        <input value={name} maxLength={100} onChange={(e) => setName(e.target.value)} placeholder="moderation backend" />
      </label>
      <label>
        Team (optional)
        <input value={team} maxLength={100} onChange={(e) => setTeam(e.target.value)} />
      </label>
      <ErrorNote error={action.error} />
      <button type="submit" className="primary" disabled={action.busy}>
        Create key
      </button>
    </form>
  );
}

function KeyState({ apiKey }: { apiKey: Key }) {
  if (apiKey.status === 'active') return <span className="tag">active</span>;
  return (
    <>
      <span className="tag danger">{apiKey.status}</span>
      <div className="muted">
        {when(apiKey.deactivatedAt)}
        {apiKey.replacedBy && <> · replaced by {apiKey.replacedBy}</>}
      </div>
    </>
  );
}

function KeyRow({ apiKey, onRotated, onRevoked }: { apiKey: Key; onRotated(key: Created): void; onRevoked(message: string): void }) {
  const action = useAction();
  const label = apiKey.name ?? apiKey.prefix;
  async function rotate() {
    const created = await action.run(() => ok(api.POST('/api/console/v1/api-keys/{keyId}/rotate', { params: { path: { keyId: apiKey.id } } })));
    if (created) onRotated(created);
  }
  async function revoke() {
    const done = await action.run(() => ok(api.POST('/api/console/v1/api-keys/{keyId}/revoke', { params: { path: { keyId: apiKey.id } } })).then(() => true));
    if (done) onRevoked(`Key ${label} is revoked: requests with it are refused from now on.`);
  }
  return (
    <tr>
      <th scope="row">
        {apiKey.name ?? <span className="muted">Unnamed</span>}
        <div className="muted mono">
          {apiKey.prefix}… · {apiKey.id}
        </div>
      </th>
      <td>{apiKey.team ?? '—'}</td>
      <td>{when(apiKey.createdAt)}</td>
      <td>{apiKey.lastUsedAt ? when(apiKey.lastUsedAt) : 'Never'}</td>
      <td>
        <KeyState apiKey={apiKey} />
      </td>
      <td className="row-actions">
        {apiKey.status === 'active' && (
          <>
            <ConfirmButton
              label="Rotate"
              accessibleName={`Rotate key ${label}`}
              question={`Rotate ${label}? A new key replaces it and this one stops working at once.`}
              confirmLabel="Rotate key"
              busy={action.busy}
              onConfirm={() => void rotate()}
            />{' '}
            <ConfirmButton
              label="Revoke"
              accessibleName={`Revoke key ${label}`}
              question={`Revoke ${label}? Requests with it are refused from now on.`}
              confirmLabel="Revoke key"
              busy={action.busy}
              onConfirm={() => void revoke()}
            />
          </>
        )}
        <ErrorNote error={action.error} />
      </td>
    </tr>
  );
}

/** The organization's API keys: what exists and when it was last used; create, rotate, revoke. */
export function ApiKeys() {
  const keys = useLoad(() => ok(api.GET('/api/console/v1/api-keys')), []);
  const [fresh, setFresh] = useState<Fresh | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const show = (title: string) => (key: Created) => {
    setNotice(null);
    setFresh({ title, key });
    keys.reload();
  };
  return (
    <>
      <PageHead title="API keys" loaded={keys} />
      <ErrorNote error={keys.error} />
      <Notice text={notice} />
      {fresh && <OneTimeSecret title={fresh.title} label="New API key" value={fresh.key.key} warning={SECRET_WARNING} onDismiss={() => setFresh(null)} />}
      <div className="two-columns">
        <div className="table-wrap">
          {keys.data && (
            <table>
              <caption className="sr-only">API keys</caption>
              <TableHead columns={['Key', 'Team', 'Created', 'Last used', 'State']} hidden="Actions" />
              <tbody>
                {keys.data.keys.map((k) => (
                  <KeyRow
                    key={k.id}
                    apiKey={k}
                    onRotated={show(`Key ${k.name ?? k.prefix} rotated: its replacement`)}
                    onRevoked={(message) => {
                      setNotice(message);
                      keys.reload();
                    }}
                  />
                ))}
              </tbody>
            </table>
          )}
          {keys.data?.keys.length === 0 && <p className="muted">The organization has no API key yet.</p>}
        </div>
        <CreateKeyForm onCreated={show('New API key created')} />
      </div>
    </>
  );
}
