import { X509Certificate } from 'node:crypto';
import * as z from 'zod';
import type { SsoSettings } from '../catalog.model.js';
import { flag, httpUrlSchema } from './common-fields.schema.js';
import { isRecord } from './config-problems.js';
import type { CheckContext } from './cross-references.checker.js';

/** `sso:` — SAML sign-in for the dashboard. */
export const ssoSchema: z.ZodType<SsoSettings> = z
  .strictObject({
    saml_enabled: flag,
    sso_url: httpUrlSchema.nullable().default(null),
    cert: z.string().nullable().default(null),
  })
  .prefault({});

/**
 * With SAML on, sign-in verifies every assertion with `cert`: a file that enables it must bring a
 * certificate that parses, or every SSO login would fail later, far from the mistake (an empty
 * `${ACME_IDP_CERT}` from a `$(cat …)` of a missing file, a truncated paste).
 */
export function checkSso(doc: Record<string, unknown>, { problems }: CheckContext): void {
  const { sso } = doc;
  if (!isRecord(sso) || sso.saml_enabled !== true) return;
  for (const key of ['sso_url', 'cert'] as const) {
    if (sso[key] === undefined || sso[key] === null) problems.add(['sso', key], 'is required when saml_enabled is true');
  }
  if (typeof sso.cert === 'string') {
    const problem = certificateProblem(sso.cert);
    if (problem !== undefined) problems.add(['sso', 'cert'], problem);
  }
}

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
