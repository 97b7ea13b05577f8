import type { QueryBus } from '@nestjs/cqrs';
import { invalidInput } from '#warden/kernel';
import { type BulkActionInput, checkBulkAction } from '../domain/bulk-action-input.js';
import { readExecutionCatalog } from '../execution-catalog.js';

/** A bulk action request checked whole against the organization's catalog; a 400 naming every problem otherwise. */
export async function checkedBulkAction(queries: QueryBus, orgId: string, body: Record<string, unknown>, maxPolicies: number): Promise<BulkActionInput> {
  const catalog = await readExecutionCatalog(queries, orgId, body);
  const checked = checkBulkAction(body, catalog, { maxPolicies });
  if (!checked.ok) throw invalidInput(...checked.problems);
  return checked.input;
}
