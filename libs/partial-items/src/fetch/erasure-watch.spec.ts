import { afterEach, describe, expect, it } from 'vitest';
import { anEvent } from '../../../../test/support/events.js';
import { sqliteStores } from '../../../../test/support/sqlite-stores.js';
import { waitFor } from '../../../../test/support/wait-for.js';
import { SUBJECT_ERASED_EVENT, SUBJECT_ERASURE_REQUESTED_EVENT } from '#warden/kernel';
import { ErasureWatch } from './erasure-watch.js';

const erasure = (type: string, subject: string, orgId = 'acme') =>
  anEvent(type, { requestId: `r-${subject}`, user: { id: subject.split(':')[1]!, typeId: 'user' }, subject }, orgId);

describe('following GDPR erasures in the log (ErasureWatch)', () => {
  let stores: ReturnType<typeof sqliteStores> | undefined;
  let watch: ErasureWatch | undefined;
  afterEach(async () => {
    await watch?.stop();
    await stores?.close();
  });

  it('reports each erasure recorded after it started, requested and completed, with its organization; not the earlier ones', async () => {
    stores = sqliteStores();
    const seen: string[] = [];
    // Before the start: its memory was empty then, nothing to forget.
    await stores.events.append('gdpr_deletion-acme:old', [erasure(SUBJECT_ERASURE_REQUESTED_EVENT, 'user:old')], 'no_stream');
    watch = new ErasureWatch(stores.events, (orgId, subject) => seen.push(`${orgId}/${subject}`));
    await watch.start();
    expect(watch.live).toBe(true);
    await stores.events.append('item-acme:post:p1', [anEvent('ItemSubmitted', {})], 'no_stream');
    await stores.events.append('gdpr_deletion-acme:ann', [erasure(SUBJECT_ERASURE_REQUESTED_EVENT, 'user:ann')], 'no_stream');
    await stores.events.append('gdpr_deletion-acme:ann', [erasure(SUBJECT_ERASED_EVENT, 'user:ann')], 0);
    await stores.events.append('gdpr_deletion-other:bob', [erasure(SUBJECT_ERASURE_REQUESTED_EVENT, 'user:bob', 'other')], 'no_stream');
    await waitFor(() => seen.length >= 3 || undefined, 'the three erasures');
    expect(seen).toEqual(['acme/user:ann', 'acme/user:ann', 'other/user:bob']);
  });

  it('is not live once stopped', async () => {
    stores = sqliteStores();
    watch = new ErasureWatch(stores.events, () => undefined);
    await watch.start();
    await watch.stop();
    expect(watch.live).toBe(false);
  });
});
