import * as z from 'zod';
import type { TextBankDefinition } from '../catalog.model.js';
import { idSchema, nameSchema, regexSchema, termsSchema } from './common-fields.schema.js';

/** One entry of `textBanks:`; the rules that use a bank are checked with the rules. */
export const textBankSchema: z.ZodType<TextBankDefinition> = z.strictObject({
  id: idSchema,
  name: nameSchema,
  terms: termsSchema.default([]),
  regexes: z.array(regexSchema).default([]),
});
