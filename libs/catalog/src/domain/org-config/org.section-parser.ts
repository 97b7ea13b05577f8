import * as z from 'zod';
import { ORG_ID } from '#warden/kernel';
import { BLUR_LEVELS, DEFAULT_WELLNESS_SETTINGS, MEDIA_LOADING } from '../catalog.model.js';
import { flag, nameSchema } from './common-fields.schema.js';

/** `org.settings.wellness:` — how the console shows graphic media; every field optional. */
export const wellnessSchema = z
  .strictObject({
    blur: z.literal(BLUR_LEVELS).default(DEFAULT_WELLNESS_SETTINGS.blur),
    greyscale: z.boolean().default(DEFAULT_WELLNESS_SETTINGS.greyscale),
    breakAfterItems: z.number().int().nonnegative().default(DEFAULT_WELLNESS_SETTINGS.breakAfterItems),
    loadMedia: z.enum(MEDIA_LOADING).default(DEFAULT_WELLNESS_SETTINGS.loadMedia),
  })
  .prefault({});

/** `org:` — which organization the file configures, and its settings. */
export const orgSchema = z.strictObject({
  id: z.string().regex(ORG_ID, 'must match ^[a-z0-9][a-z0-9_-]{0,62}$ (lower-case letters, digits, - and _)'),
  // The organization's own limit (identity's organization decider), checked here so that the
  // file's problem has its path and comes with the others, before anything is planned.
  name: nameSchema.max(200),
  settings: z
    .strictObject({
      requireDecisionReason: flag,
      requirePolicyForDecisions: flag,
      requireSecondFactor: flag,
      auditorPersonalData: flag,
      wellness: wellnessSchema,
    })
    .prefault({}),
});
