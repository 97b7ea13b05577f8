import * as z from 'zod';
import { CHILD_SAFETY_QUEUE_ID, MAX_AUTO_CLOSE_DAYS, MAX_LOCK_TIMEOUT_SECONDS, QUEUE_ORDERS, type QueueDefinition } from '../catalog.model.js';
import { isRecord, ProblemList } from './config-problems.js';
import { flag, idSchema, nameSchema, positiveInt } from './common-fields.schema.js';
import { addIssues, PARSE_PARAMS } from './schema-issues.js';
import type { CheckContext } from './cross-references.checker.js';
import { entriesOf } from './raw-document.reader.js';

/** One entry of `queues:`. */
export const queueSchema: z.ZodType<QueueDefinition> = z.strictObject({
  id: idSchema,
  name: nameSchema,
  isDefault: flag,
  isAppealsDefault: flag,
  lockTimeoutSeconds: positiveInt.max(MAX_LOCK_TIMEOUT_SECONDS).default(600),
  order: z.enum(QUEUE_ORDERS).default('FIFO'),
  autoCloseAfterDays: positiveInt.max(MAX_AUTO_CLOSE_DAYS).nullable().default(null),
});

/** The built-in queue's id is taken, and at most one queue is each kind of default. */
export function checkQueues(doc: Record<string, unknown>, { problems }: CheckContext): void {
  const firstFlagged: Record<'isDefault' | 'isAppealsDefault', number | undefined> = {
    isDefault: undefined,
    isAppealsDefault: undefined,
  };
  const describe = { isDefault: 'the default', isAppealsDefault: 'the appeals default' };
  for (const { index, raw } of entriesOf(doc, 'queues')) {
    if (raw.id === CHILD_SAFETY_QUEUE_ID) {
      problems.add(['queues', index, 'id'], `"${CHILD_SAFETY_QUEUE_ID}" is reserved for the built-in child-safety queue`);
    }
    for (const flagName of ['isDefault', 'isAppealsDefault'] as const) {
      if (raw[flagName] !== true) continue;
      const first = firstFlagged[flagName];
      if (first === undefined) firstFlagged[flagName] = index;
      else problems.add(['queues', index, flagName], `only one queue may be ${describe[flagName]} (queues[${first}] already is)`);
    }
  }
}

export type QueueValidation =
  { ok: true; queue: QueueDefinition } | { ok: false; problems: ReadonlyArray<{ readonly path: readonly (string | number)[]; readonly message: string }> };

/**
 * One queue as the console sends it, checked as a `queues:` entry of the file is (the same schema,
 * defaults and reserved id); paths are relative to the entry.
 */
export function validateQueueDefinition(raw: unknown): QueueValidation {
  const problems = new ProblemList();
  const parsed = queueSchema.safeParse(raw, PARSE_PARAMS);
  if (!parsed.success) addIssues(parsed.error.issues, [], problems);
  if (isRecord(raw) && raw.id === CHILD_SAFETY_QUEUE_ID) {
    problems.add(['id'], `"${CHILD_SAFETY_QUEUE_ID}" is reserved for the built-in child-safety queue`);
  }
  if (!problems.isEmpty || !parsed.success) return { ok: false, problems: problems.entries() };
  return { ok: true, queue: parsed.data };
}
