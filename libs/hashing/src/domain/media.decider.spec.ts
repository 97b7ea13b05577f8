import { describe, expect, it } from 'vitest';
import { foldEvents } from '#warden/kernel';
import { type MediaHashedOf, mediaDecider, type RecordMediaResult } from './media.decider.js';

const URL = 'https://cdn.example/a.jpg';
type Result = { ok: true; url: string; pdq: string; quality: number; md5: string; sha256: string } | { ok: false; url: string; reason: string };
const decider = mediaDecider<Result>();
const hashed = { ok: true as const, url: URL, pdq: 'f'.repeat(64), quality: 100, md5: 'm', sha256: 's' };
const record = (result: Result = hashed): RecordMediaResult<Result> => ({
  type: 'RecordMediaResult',
  item: { id: 'p1', typeId: 'post' },
  version: 2,
  result,
});

/** Given events, when a command, then the events it decides. */
function given(events: MediaHashedOf<Result>[]) {
  const state = foldEvents(decider, events);
  return { state, when: (command: RecordMediaResult<Result>) => decider.decide(command, state) };
}

describe('media decider', () => {
  it('records a result, a failure as much as a hash', () => {
    expect(given([]).when(record())).toEqual([{ type: 'MediaHashed', data: { item: { id: 'p1', typeId: 'post' }, version: 2, result: hashed } }]);
    const failed = { ok: false as const, url: URL, reason: 'http-404' };
    expect(given([]).when(record(failed))[0]!.data.result).toEqual(failed);
  });

  it("keeps the item's data out of the record: only its identity, never the personal data it carries", () => {
    const item = { id: 'p1', typeId: 'post', data: { text: 'my address is …' }, creator: null, subject: 'post:p1' };
    const [event] = given([]).when({ ...record(), item });
    expect(JSON.parse(JSON.stringify(event!.data.item))).toEqual({ id: 'p1', typeId: 'post' });
  });

  it('records a URL once: the first result stands', () => {
    const first = given([]).when(record());
    expect(given(first).state.result).toEqual(hashed);
    expect(given(first).when(record({ ok: false, url: URL, reason: 'network' }))).toEqual([]);
  });
});
