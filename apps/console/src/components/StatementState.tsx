import { api, ok, type Schemas } from '../api/client';
import { when } from '../app/format';
import { useLoad } from '../app/use-load';

export type ItemStatement = Schemas['StatementViewDto'];
type Submission = ItemStatement['submission'];

/** A statement's submission to the DSA Transparency Database in words (docs/transparency.md, "Submission"). */
const LABEL: Record<Submission['state'], string> = {
  off: 'not submitted (no submission configured)',
  incomplete: 'incomplete: the DSA mapping lacks something',
  unsent: 'waiting to be sent',
  pending: 'being sent',
  retrying: 'retrying',
  submitted: 'submitted',
  rejected: 'rejected by the Database',
  abandoned: 'abandoned after every retry',
};
const TONE: Record<Submission['state'], string> = {
  off: 'tag',
  incomplete: 'tag warn',
  unsent: 'tag',
  pending: 'tag',
  retrying: 'tag warn',
  submitted: 'tag',
  rejected: 'tag danger',
  abandoned: 'tag danger',
};

/** The state as a tag, with the attempts, the next try and the last error in its title. */
export function StatementTag({ statement }: { statement: ItemStatement }) {
  const s = statement.submission;
  const details = [
    s.attempts > 0 ? `${s.attempts} attempt${s.attempts === 1 ? '' : 's'}` : null,
    s.submittedAt ? `submitted ${when(s.submittedAt)}` : null,
    s.nextAttemptAt && (s.state === 'retrying' || s.state === 'pending') ? `next try ${when(s.nextAttemptAt)}` : null,
    s.lastError,
    statement.problems.length > 0 ? statement.problems.join('; ') : null,
  ].filter((d): d is string => d !== null);
  return (
    <span className={TONE[s.state]} title={details.join(' · ') || undefined} data-state={s.state}>
      {LABEL[s.state]}
    </span>
  );
}

/**
 * The statements of reasons of an item's decisions, by delivery id (what the job view's actions
 * carry). Empty while loading or when this viewer may not see them: the view stays usable.
 */
export function useItemStatements(typeId: string, itemId: string): ReadonlyMap<string, ItemStatement> {
  const loaded = useLoad(
    () => ok(api.GET('/api/console/v1/transparency/items/{typeId}/{itemId}/statements', { params: { path: { typeId, itemId } } })).then((b) => b.statements),
    [typeId, itemId],
  );
  return new Map((loaded.data ?? []).map((s) => [s.deliveryId, s]));
}
