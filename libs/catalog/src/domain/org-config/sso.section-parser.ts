import { X509Certificate } from 'node:crypto';
import * as z from 'zod';
import { ROLES, type SsoSettings } from '../catalog.model.js';
import { flag, httpUrlSchema } from './common-fields.schema.js';
import { isRecord, type Path, ProblemList } from './config-problems.js';
import { addIssues, PARSE_PARAMS } from './schema-issues.js';
import type { CheckContext } from './cross-references.checker.js';

/** `sso:` — SAML sign-in for the dashboard. */
export const ssoSchema: z.ZodType<SsoSettings> = z
  .strictObject({
    saml_enabled: flag,
    sso_url: httpUrlSchema.nullable().default(null),
    cert: z.string().nullable().default(null),
    passwordLogin: z.boolean().default(true),
    jit: z
      .strictObject({
        enabled: flag,
        defaultRoles: z.array(z.enum(ROLES)).default([]),
      })
      .prefault({}),
    roleAttribute: z.string().regex(/\S/, 'must not be blank').nullable().default(null),
    roleMap: z.record(z.string().regex(/\S/, 'must not be blank'), z.array(z.enum(ROLES))).default({}),
    wantAssertionsSigned: z.boolean().default(true),
  })
  .prefault({});

/**
 * With SAML on, sign-in verifies every assertion with `cert`: a file that enables it must bring a
 * certificate that parses, or every SSO login would fail later, far from the mistake (an empty
 * `${ACME_IDP_CERT}` from a `$(cat …)` of a missing file, a truncated paste).
 */
export function checkSso(doc: Record<string, unknown>, { problems }: CheckContext): void {
  const { sso } = doc;
  if (isRecord(sso)) checkSsoFields(sso, ['sso'], problems);
}

/** The checks across `sso:` fields, on the section as written; problems are reported under `at`. */
function checkSsoFields(sso: Record<string, unknown>, at: Path, problems: ProblemList): void {
  // Groups mapped to roles are read from an attribute: without one the map could never apply.
  if (isRecord(sso.roleMap) && Object.keys(sso.roleMap).length > 0 && (sso.roleAttribute === undefined || sso.roleAttribute === null)) {
    problems.add([...at, 'roleAttribute'], 'is required when roleMap is set (the assertion attribute that holds the groups)');
  }
  // A user always has a role: provisioning needs roles from somewhere.
  if (isRecord(sso.jit) && sso.jit.enabled === true && !(Array.isArray(sso.jit.defaultRoles) && sso.jit.defaultRoles.length > 0) && !sso.roleAttribute) {
    problems.add([...at, 'jit', 'defaultRoles'], 'must name at least one role when jit is enabled without roleAttribute');
  }
  if (sso.saml_enabled !== true) {
    // Password login off with no other way in would lock every user of the organization out.
    if (sso.passwordLogin === false) problems.add([...at, 'passwordLogin'], 'can be false only when saml_enabled is true');
    return;
  }
  for (const key of ['sso_url', 'cert'] as const) {
    if (sso[key] === undefined || sso[key] === null) problems.add([...at, key], 'is required when saml_enabled is true');
  }
  if (typeof sso.cert === 'string') {
    const problem = certificateProblem(sso.cert);
    if (problem !== undefined) problems.add([...at, 'cert'], problem);
  }
}

export type SsoSettingsValidation =
  | { readonly ok: true; readonly sso: SsoSettings }
  | { readonly ok: false; readonly problems: ReadonlyArray<{ readonly path: Path; readonly message: string }> };

/**
 * One `sso:` section on its own, checked exactly as in a configuration file (shape, defaults,
 * the checks across fields, the certificate): the console's SSO settings go through this too.
 * `checkCertificate`: a certificate is checked even with SAML off (the file checks it only with
 * SAML on). Paths are relative to the section.
 */
export function validateSsoSettings(raw: unknown, options: { checkCertificate?: boolean } = {}): SsoSettingsValidation {
  const problems = new ProblemList();
  const parsed = ssoSchema.safeParse(raw, PARSE_PARAMS);
  if (!parsed.success) addIssues(parsed.error.issues, [], problems);
  if (isRecord(raw)) {
    checkSsoFields(raw, [], problems);
    // A certificate given on its own (SAML still off) is checked too: it is there to be used next.
    if (options.checkCertificate && raw.saml_enabled !== true && typeof raw.cert === 'string') {
      const problem = certificateProblem(raw.cert);
      if (problem !== undefined) problems.add(['cert'], problem);
    }
  }
  if (!problems.isEmpty || !parsed.success) return { ok: false, problems: problems.entries() };
  return { ok: true, sso: parsed.data };
}

/** What an organization that never set `sso:` has: the section's defaults. */
export const defaultSsoSettings = (): SsoSettings => ssoSchema.parse(undefined);

function certificateProblem(cert: string): string | undefined {
  if (cert.trim() === '') return "is empty; saml_enabled is true, so the IdP's signing certificate (PEM) is required";
  if (!/-----BEGIN CERTIFICATE-----[\s\S]+-----END CERTIFICATE-----/.test(cert)) {
    return 'is not a PEM certificate (expected -----BEGIN CERTIFICATE----- … -----END CERTIFICATE-----)';
  }
  try {
    new X509Certificate(cert);
    return undefined;
  } catch {
    return 'is not a valid X.509 certificate (the PEM block does not decode)';
  }
}
