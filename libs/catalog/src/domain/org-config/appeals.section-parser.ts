import * as z from 'zod';
import type { AppealSettings } from '../catalog.model.js';
import { callbackSchema, jsonObjectSchema } from './common-fields.schema.js';

/** `appeals:` — where appeal decisions are sent. */
export const appealsSchema: z.ZodType<AppealSettings> = z
  .strictObject({ callback: callbackSchema.nullable().default(null), body: jsonObjectSchema.default({}) })
  .prefault({});
