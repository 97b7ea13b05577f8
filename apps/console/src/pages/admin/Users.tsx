import { type FormEvent, useState } from 'react';
import { api, ok, type Schemas } from '../../api/client';
import { useSession } from '../../app/session';
import { when } from '../../app/format';
import { useAction, useLoad } from '../../app/use-load';
import { ConfirmButton } from '../../components/ConfirmButton';
import { ErrorNote } from '../../components/ErrorNote';
import { OneTimeSecret } from '../../components/OneTimeSecret';
import { RolePicker } from '../../components/RolePicker';
import { type Role, roleLabel } from '../../app/roles';
import { Notice, PageHead } from '../../components/PageHead';
import { TableHead } from '../../components/TableHead';

type User = Schemas['UserDto'];
type Invitation = Schemas['InvitationResponseDto'];

function InviteForm({ onInvited }: { onInvited(invitation: Invitation): void }) {
  const action = useAction();
  const [email, setEmail] = useState('');
  const [roles, setRoles] = useState<Role[]>(['MODERATOR']);
  async function submit(event: FormEvent) {
    event.preventDefault();
    if (roles.length === 0) {
      action.setError('Choose at least one role.');
      return;
    }
    const invitation = await action.run(() => ok(api.POST('/api/console/v1/users/invitations', { body: { email: email.trim(), roles } })));
    if (invitation) {
      setEmail('');
      onInvited(invitation);
    }
  }
  return (
    <form className="card" onSubmit={submit} aria-labelledby="invite-heading">
      <h2 id="invite-heading">Invite a user</h2>
      <label>
        Email
        <input type="email" required value={email} onChange={(e) => setEmail(e.target.value)} autoComplete="off" />
      </label>
      <RolePicker legend="Roles" chosen={roles} onChange={setRoles} />
      <ErrorNote error={action.error} />
      <button type="submit" className="primary" disabled={action.busy}>
        Invite
      </button>
    </form>
  );
}

function RolesEditor({ user, onDone, onCancel }: { user: User; onDone(message: string): void; onCancel(): void }) {
  const action = useAction();
  const [roles, setRoles] = useState<Role[]>([...user.roles]);
  async function submit(event: FormEvent) {
    event.preventDefault();
    const saved = await action.run(() => ok(api.PUT('/api/console/v1/users/{userId}/roles', { params: { path: { userId: user.id } }, body: { roles } })));
    if (saved) onDone(`${saved.email ?? saved.id} now has the roles ${saved.roles.map(roleLabel).join(', ')}.`);
  }
  return (
    <form onSubmit={submit} aria-label={`Roles of ${user.email ?? user.id}`}>
      <RolePicker legend={`Roles of ${user.email ?? user.id}`} chosen={roles} onChange={setRoles} />
      <ErrorNote error={action.error} />
      <button type="submit" className="primary" disabled={action.busy || roles.length === 0}>
        Save roles
      </button>{' '}
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
    </form>
  );
}

function UserRow({ user, isSelf, onChanged }: { user: User; isSelf: boolean; onChanged(message: string): void }) {
  const disable = useAction();
  const [editing, setEditing] = useState(false);
  const name = user.email ?? user.id;
  async function doDisable() {
    const done = await disable.run(() => ok(api.POST('/api/console/v1/users/{userId}/disable', { params: { path: { userId: user.id } } })));
    if (done) onChanged(`${name} is disabled and can no longer sign in.`);
  }
  return (
    <tr>
      <th scope="row">
        {user.email ?? <span className="muted">erased</span>} <span className="muted">{user.id}</span>
        {isSelf && <span className="tag">you</span>}
      </th>
      <td>
        {editing ? (
          <RolesEditor
            user={user}
            onCancel={() => setEditing(false)}
            onDone={(message) => {
              setEditing(false);
              onChanged(message);
            }}
          />
        ) : (
          user.roles.map(roleLabel).join(', ')
        )}
      </td>
      <td>
        <span className={user.state === 'disabled' ? 'tag danger' : user.state === 'invited' ? 'tag warn' : 'tag'}>{user.state}</span>
        {/* An active user without a password (made by `warden user create`) cannot sign in with one: shown apart from those who can. */}
        {user.state === 'active' && !user.hasPassword && (
          <>
            {' '}
            <span className="tag warn" title="Cannot sign in with a password until one is set (warden user set-password), or signs in through SSO">
              no password
            </span>
          </>
        )}
      </td>
      <td className="row-actions">
        {user.state !== 'disabled' && !editing && (
          <button type="button" onClick={() => setEditing(true)} aria-label={`Change roles of ${name}`}>
            Change roles
          </button>
        )}{' '}
        {user.state !== 'disabled' && (
          <ConfirmButton
            label="Disable"
            accessibleName={`Disable ${name}`}
            question={`Disable ${name}? They are signed out and cannot sign in again.`}
            confirmLabel="Disable user"
            busy={disable.busy}
            onConfirm={() => void doDisable()}
          />
        )}
        <ErrorNote error={disable.error} />
      </td>
    </tr>
  );
}

/** The organization's console users: invite people, change what they may do, disable them. */
export function Users() {
  const session = useSession();
  const users = useLoad(() => ok(api.GET('/api/console/v1/users')), []);
  const [invitation, setInvitation] = useState<Invitation | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const changed = (message: string) => {
    setNotice(message);
    users.reload();
  };
  return (
    <>
      <PageHead title="Users" loaded={users} />
      <ErrorNote error={users.error} />
      <Notice text={notice} />
      <div className="two-columns">
        <div className="table-wrap">
          {users.data && (
            <table>
              <caption className="sr-only">Console users</caption>
              <TableHead columns={['User', 'Roles', 'State']} hidden="Actions" />
              <tbody>
                {users.data.users.map((u) => (
                  <UserRow key={u.id} user={u} isSelf={u.id === session.user?.id} onChanged={changed} />
                ))}
              </tbody>
            </table>
          )}
        </div>
        <div>
          {invitation ? (
            <OneTimeSecret
              title={`Invitation for ${invitation.user.email ?? invitation.user.id}`}
              label="Invitation link"
              value={invitation.invitationUrl}
              warning={`Send this link to the person; it is shown only now, works once, and expires ${when(invitation.expiresAt)}.`}
              onDismiss={() => setInvitation(null)}
            />
          ) : (
            <InviteForm
              onInvited={(sent) => {
                setInvitation(sent);
                users.reload();
              }}
            />
          )}
        </div>
      </div>
    </>
  );
}
