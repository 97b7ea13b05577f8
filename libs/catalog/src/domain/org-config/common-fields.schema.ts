import { RE2JS } from 're2js';
import * as z from 'zod';
import { PENALTIES } from '../catalog.model.js';
import { errorMessage } from './config-problems.js';

export const idSchema = z.string().regex(/^\S+$/, 'must be a non-empty string without whitespace');
export const nameSchema = z.string().regex(/\S/, 'must not be blank');
export const nullableText = z.string().nullable().default(null);
export const flag = z.boolean().default(false);
export const idList = z.array(idSchema).default([]);
export const penaltySchema = z.enum(PENALTIES).default('NONE');
export const positiveInt = z.number().int().positive();
export const jsonObjectSchema = z.record(z.string(), z.unknown());
export const httpUrlSchema = z.string().refine(isHttpUrl, 'must be an absolute http(s) URL');
export const regexSchema = z.string().superRefine((pattern, ctx) => {
  const error = re2SyntaxError(pattern);
  if (error !== null) ctx.addIssue({ code: 'custom', message: `invalid regular expression: ${error}`, input: pattern });
});

/** Where actions and appeal decisions are sent. */
export const callbackSchema = z.strictObject({
  url: httpUrlSchema,
  headers: z.record(z.string(), z.string()).default({}),
});

function isHttpUrl(text: string): boolean {
  if (!URL.canParse(text)) return false;
  const url = new URL(text);
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
}

/** Patterns run on re2js at evaluation time, so only what RE2 accepts is valid. */
function re2SyntaxError(pattern: string): string | null {
  try {
    RE2JS.compile(pattern);
    return null;
  } catch (error) {
    return errorMessage(error);
  }
}
