import * as z from 'zod';
import { ORG_ID } from '#warden/kernel';
import { flag, nameSchema } from './common-fields.schema.js';

/** `org:` — which organization the file configures, and its settings. */
export const orgSchema = z.strictObject({
  id: z.string().regex(ORG_ID, 'must match ^[a-z0-9][a-z0-9_-]{0,62}$ (lower-case letters, digits, - and _)'),
  name: nameSchema,
  settings: z
    .strictObject({ requireDecisionReason: flag, requirePolicyForDecisions: flag, requireSecondFactor: flag })
    .prefault({}),
});
