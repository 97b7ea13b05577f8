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

export function checkSso(doc: Record<string, unknown>, { problems }: CheckContext): void {
  const { sso } = doc;
  if (!isRecord(sso) || sso.saml_enabled !== true) return;
  for (const key of ['sso_url', 'cert'] as const) {
    if (sso[key] === undefined || sso[key] === null) problems.add(['sso', key], 'is required when saml_enabled is true');
  }
}
