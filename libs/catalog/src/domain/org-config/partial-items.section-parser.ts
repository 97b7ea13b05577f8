import * as z from 'zod';
import { DEFAULT_PARTIAL_ITEMS, type PartialItemsSettings } from '../catalog.model.js';
import { checkUrlUserInfo, httpHeadersSchema, httpUrlSchema } from './common-fields.schema.js';

const whole = (min: number, max: number) => z.number().int().min(min).max(max);

/**
 * `partialItems:` — the customer's endpoint for whole items (docs/partial-items.md). Left out (or
 * empty): null, no endpoint. Header values may be `${NAME}` references like callback headers; they
 * and the URL are sealed before they reach the log (docs/configuration-as-code.md, "Secrets").
 * User info in the URL is sent as `Authorization: Basic …`, as a callback URL's is.
 */
export const partialItemsSchema: z.ZodType<PartialItemsSettings | null> = z
  .strictObject({
    url: httpUrlSchema,
    headers: httpHeadersSchema,
    timeoutMs: whole(100, 30_000).default(DEFAULT_PARTIAL_ITEMS.timeoutMs),
    cacheSeconds: whole(0, 86_400).default(DEFAULT_PARTIAL_ITEMS.cacheSeconds),
    maxConcurrency: whole(1, 64).default(DEFAULT_PARTIAL_ITEMS.maxConcurrency),
    retries: whole(0, 5).default(DEFAULT_PARTIAL_ITEMS.retries),
  })
  .superRefine(({ url, headers }, ctx) => checkUrlUserInfo(url, headers, 'docs/partial-items.md, "Credentials in the URL"', ctx))
  .nullish()
  .transform((settings) => settings ?? null);
