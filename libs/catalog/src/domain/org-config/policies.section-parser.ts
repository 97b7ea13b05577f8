import * as z from 'zod';
import type { PolicyDefinition } from '../catalog.model.js';
import { flag, idSchema, nameSchema, nullableText, penaltySchema } from './common-fields.schema.js';
import type { ProblemList } from './config-problems.js';
import { type CheckContext, checkReference } from './cross-references.checker.js';
import { entriesOf, isId } from './raw-document.reader.js';
import { policyDsaSchema } from './dsa-mapping.section-parser.js';

/** One entry of `policies:`. */
export const policySchema: z.ZodType<PolicyDefinition> = z.strictObject({
  id: idSchema,
  name: nameSchema,
  parentId: idSchema.nullable().default(null),
  policyText: nullableText,
  enforcementGuidelines: nullableText,
  policyType: nullableText,
  penalty: penaltySchema,
  userStrikeCount: z.number().int().min(0).default(0),
  applyUserStrikeCountConfigToChildren: flag,
  dsa: policyDsaSchema.optional(),
});

interface PolicyNode {
  index: number;
  id: string;
  parentId: string | undefined;
}

/** Parents must exist and must not form a cycle. */
export function checkPolicies(doc: Record<string, unknown>, ctx: CheckContext): void {
  const nodes: PolicyNode[] = [];
  for (const { index, raw } of entriesOf(doc, 'policies')) {
    checkReference(raw, 'parentId', ctx.declared.policies, ['policies', index], 'policy', ctx);
    if (typeof raw.id === 'string') nodes.push({ index, id: raw.id, parentId: isId(raw.parentId) ? raw.parentId : undefined });
  }

  const byId = new Map<string, PolicyNode>();
  for (const node of nodes) if (!byId.has(node.id)) byId.set(node.id, node);
  const settled = new Set<string>();
  for (const start of nodes) {
    const chain: PolicyNode[] = [];
    const positionInChain = new Map<string, number>();
    let current: PolicyNode | undefined = start;
    while (current !== undefined && !settled.has(current.id)) {
      const cycleStart = positionInChain.get(current.id);
      if (cycleStart !== undefined) {
        reportPolicyCycle(chain.slice(cycleStart), ctx.problems);
        break;
      }
      positionInChain.set(current.id, chain.length);
      chain.push(current);
      current = current.parentId === undefined ? undefined : byId.get(current.parentId);
    }
    for (const node of chain) settled.add(node.id);
  }
}

/** Reported once, at the member written first, with the loop spelled out from there. */
function reportPolicyCycle(cycle: PolicyNode[], problems: ProblemList): void {
  const firstWritten = cycle.reduce((a, b) => (b.index < a.index ? b : a));
  const from = cycle.indexOf(firstWritten);
  const loop = [...cycle.slice(from), ...cycle.slice(0, from), firstWritten].map(({ id }) => id);
  problems.add(['policies', firstWritten.index, 'parentId'], `policy parents form a cycle: ${loop.join(' → ')}`);
}
