import * as z from 'zod';
import { DEFAULT_PARTIAL_ITEMS, type PartialItemsSettings } from '../catalog.model.js';
import { httpUrlSchema } from './common-fields.schema.js';

/** RFC 9110 token: what an HTTP header name may be (a name with a space or colon would be refused only when sent). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Headers Warden sets itself on every request to the endpoint (docs/partial-items.md). */
const RESERVED_HEADERS: ReadonlySet<string> = new Set(['content-type', 'content-length', 'host', 'service-signature', 'service-delivery-id']);

const whole = (min: number, max: number) => z.number().int().min(min).max(max);

/**
 * `partialItems:` — the customer's endpoint for whole items (docs/partial-items.md). Left out (or
 * empty): null, no endpoint. Header values may be `${NAME}` references like callback headers; they
 * and the URL are sealed before they reach the log (docs/configuration-as-code.md, "Secrets").
 */
export const partialItemsSchema: z.ZodType<PartialItemsSettings | null> = z
  .strictObject({
    url: httpUrlSchema,
    headers: z
      .record(z.string(), z.string())
      .default({})
      .superRefine((headers, ctx) => {
        for (const name of Object.keys(headers)) {
          const problem = !HEADER_NAME.test(name)
            ? "is not an HTTP header name (letters, digits and !#$%&'*+.^_`|~-)"
            : RESERVED_HEADERS.has(name.toLowerCase())
              ? 'is set by Warden itself'
              : null;
          if (problem !== null) ctx.addIssue({ code: 'custom', message: problem, path: [name], input: name });
        }
      }),
    timeoutMs: whole(100, 30_000).default(DEFAULT_PARTIAL_ITEMS.timeoutMs),
    cacheSeconds: whole(0, 86_400).default(DEFAULT_PARTIAL_ITEMS.cacheSeconds),
    maxConcurrency: whole(1, 64).default(DEFAULT_PARTIAL_ITEMS.maxConcurrency),
    retries: whole(0, 5).default(DEFAULT_PARTIAL_ITEMS.retries),
  })
  .nullish()
  .transform((settings) => settings ?? null);
