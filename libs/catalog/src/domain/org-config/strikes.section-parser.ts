import * as z from 'zod';
import type { StrikeSettings } from '../catalog.model.js';
import { idSchema, positiveInt } from './common-fields.schema.js';
import { isRecord } from './config-problems.js';
import { type CheckContext, checkReference } from './cross-references.checker.js';
import { listAt } from './raw-document.reader.js';

/** `strikes:` — the strike window and the actions taken at each threshold. */
export const strikesSchema: z.ZodType<StrikeSettings> = z
  .strictObject({
    windowDays: positiveInt.nullable().default(null),
    thresholds: z.array(z.strictObject({ strikes: positiveInt, actionId: idSchema })).default([]),
  })
  .prefault({});

export function checkStrikes(doc: Record<string, unknown>, ctx: CheckContext): void {
  listAt(doc.strikes, 'thresholds').forEach((threshold, i) => {
    if (isRecord(threshold)) {
      checkReference(threshold, 'actionId', ctx.declared.actions, ['strikes', 'thresholds', i], 'action', ctx);
    }
  });
}
