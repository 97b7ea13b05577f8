import { type FormEvent, useState } from 'react';
import { api, ok, type Schemas } from '../../api/client';
import type { Role } from '../../app/roles';
import { useAction, useLoad } from '../../app/use-load';
import { fileManagedExplanation, ManagedBadge } from '../../components/ManagedBy';
import { parseRoleMap } from './role-map';
import { ErrorNote } from '../../components/ErrorNote';
import { RolePicker } from '../../components/RolePicker';

type Sso = Schemas['SsoSettingsResponseDto'];
type Change = Schemas['ChangeSsoSettingsRequestDto'];

/** The group → roles map as lines people can edit: `moderators = MODERATOR, ANALYST`. */
const roleMapText = (map: Sso['roleMap']) =>
  Object.entries(map)
    .map(([group, roles]) => `${group} = ${roles.join(', ')}`)
    .join('\n');

function ServiceProvider({ sp }: { sp: Sso['serviceProvider'] }) {
  const rows: Array<[string, string]> = [
    ['SP metadata URL', sp.metadataUrl],
    ['Sign-in URL', sp.loginUrl],
    ['Entity id (audience)', sp.entityId],
    ['ACS URL (HTTP-POST)', sp.acsUrl],
  ];
  return (
    <section className="card" aria-labelledby="sp-heading">
      <h2 id="sp-heading">For your identity provider</h2>
      <dl className="fields">
        {rows.map(([label, value]) => (
          <div key={label} className="field">
            <dt>{label}</dt>
            <dd>
              <a href={value} className="mono">
                {value}
              </a>
            </dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

function SsoForm({ current, onSaved }: { current: Sso; onSaved(next: Sso): void }) {
  const action = useAction();
  const [enabled, setEnabled] = useState(current.saml_enabled);
  const [ssoUrl, setSsoUrl] = useState(current.sso_url ?? '');
  const [cert, setCert] = useState('');
  const [removeCert, setRemoveCert] = useState(false);
  const [passwordLogin, setPasswordLogin] = useState(current.passwordLogin);
  const [signed, setSigned] = useState(current.wantAssertionsSigned);
  const [roleAttribute, setRoleAttribute] = useState(current.roleAttribute ?? '');
  const [roleMap, setRoleMap] = useState(roleMapText(current.roleMap));
  const [jit, setJit] = useState(current.jit.enabled);
  const [jitRoles, setJitRoles] = useState<Role[]>([...current.jit.defaultRoles]);
  const locked = current.managedBy === 'file';

  async function submit(event: FormEvent) {
    event.preventDefault();
    const map = parseRoleMap(roleMap);
    if (typeof map === 'string') {
      action.setError(map);
      return;
    }
    const change: Change = {
      saml_enabled: enabled,
      sso_url: ssoUrl.trim() || null,
      passwordLogin,
      wantAssertionsSigned: signed,
      roleAttribute: roleAttribute.trim() || null,
      roleMap: map,
      jit: { enabled: jit, defaultRoles: jitRoles },
      // Left out, the stored certificate stays: it is never sent back to the browser to resend.
      ...(removeCert ? { cert: null } : cert.trim() ? { cert: cert.trim() } : {}),
    };
    const saved = await action.run(() => ok(api.PUT('/api/console/v1/sso', { body: change })));
    if (saved) {
      setCert('');
      setRemoveCert(false);
      onSaved(saved);
    }
  }

  return (
    <form className="card" onSubmit={submit} aria-labelledby="sso-form-heading">
      <h2 id="sso-form-heading">
        SAML single sign-on <ManagedBadge managedBy={current.managedBy} file={current.file} />
      </h2>
      {locked && (
        <p className="muted" id="sso-file-managed">
          {fileManagedExplanation('These settings are', current.file, 'sso')}
        </p>
      )}
      {/* A disabled fieldset disables every control in it: the file's settings are shown, not edited. */}
      <fieldset className="bare" disabled={locked} aria-describedby={locked ? 'sso-file-managed' : undefined}>
        <label>
          <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} /> Users can sign in through the identity provider
        </label>
        <label>
          IdP SSO URL (HTTP-Redirect binding)
          <input type="url" value={ssoUrl} onChange={(e) => setSsoUrl(e.target.value)} placeholder="https://idp.example/sso/saml" />
        </label>
        <fieldset>
          <legend>IdP signing certificate</legend>
          <p className="muted">
            {current.certificate
              ? `Stored: ${current.certificate.subject ?? 'no subject'}, expires ${current.certificate.notAfter ? new Date(current.certificate.notAfter).toLocaleDateString() : '—'}, SHA-256 ${current.certificate.fingerprintSha256 ?? '—'}`
              : 'None stored.'}
          </p>
          <label>
            New certificate (PEM; leave empty to keep the stored one)
            <textarea rows={4} value={cert} onChange={(e) => setCert(e.target.value)} disabled={removeCert} className="mono" spellCheck={false} />
          </label>
          {current.certificate && (
            <label>
              <input type="checkbox" checked={removeCert} onChange={(e) => setRemoveCert(e.target.checked)} /> Remove the stored certificate (only with SSO off)
            </label>
          )}
        </fieldset>
        <label>
          <input type="checkbox" checked={passwordLogin} onChange={(e) => setPasswordLogin(e.target.checked)} /> Users may also sign in with a password
        </label>
        <label>
          <input type="checkbox" checked={signed} onChange={(e) => setSigned(e.target.checked)} /> Require signed assertions
        </label>
        <label>
          Group attribute in the assertion (empty: roles are not taken from the IdP)
          <input value={roleAttribute} onChange={(e) => setRoleAttribute(e.target.value)} placeholder="groups" />
        </label>
        <label>
          Group roles (one line per group: group = ROLE, ROLE)
          <textarea rows={3} value={roleMap} onChange={(e) => setRoleMap(e.target.value)} className="mono" spellCheck={false} />
        </label>
        <label>
          <input type="checkbox" checked={jit} onChange={(e) => setJit(e.target.checked)} /> Create users on their first SSO sign-in
        </label>
        {jit && <RolePicker legend="Roles of a new user when no group maps" chosen={jitRoles} onChange={setJitRoles} />}
      </fieldset>
      <ErrorNote error={action.error} />
      <button type="submit" className="primary" disabled={action.busy || locked}>
        Save SSO settings
      </button>
    </form>
  );
}

/** The organization's SAML sign-in: the IdP's settings, and what to enter at the IdP. */
export function SsoSettings() {
  const sso = useLoad(() => ok(api.GET('/api/console/v1/sso')), []);
  const [saved, setSaved] = useState<Sso | null>(null);
  const current = saved ?? sso.data;
  return (
    <>
      <h1>SSO</h1>
      <ErrorNote error={sso.error} />
      {saved && (
        <p className="notice" role="status">
          SSO settings saved.
        </p>
      )}
      {current && (
        <div className="two-columns">
          <SsoForm key={JSON.stringify(current)} current={current} onSaved={setSaved} />
          <ServiceProvider sp={current.serviceProvider} />
        </div>
      )}
    </>
  );
}
