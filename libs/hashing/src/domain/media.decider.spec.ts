import { describe, expect, it } from 'vitest';
import { deciderSpecification } from '#warden/kernel';
import { mediaDecider, type RecordMediaResult } from './media.decider.js';

const URL = 'https://cdn.example/a.jpg';
type Result = { ok: true; url: string; pdq: string; quality: number; md5: string; sha256: string } | { ok: false; url: string; reason: string };
const decider = mediaDecider<Result>();
const hashed = { ok: true as const, url: URL, pdq: 'f'.repeat(64), quality: 100, md5: 'm', sha256: 's' };
const record = (result: Result = hashed): RecordMediaResult<Result> => ({
  type: 'RecordMediaResult',
  item: { id: 'p1', typeId: 'post' },
  version: 2,
  subject: 'user:u1',
  result,
});

const spec = deciderSpecification(decider);

describe('media decider', () => {
  it('records a result, a failure as much as a hash', () => {
    spec
      .given([])
      .when(record())
      .then([{ type: 'MediaHashed', data: { item: { id: 'p1', typeId: 'post' }, version: 2, subject: 'user:u1', result: hashed } }]);
    const failed = { ok: false as const, url: URL, reason: 'http-404' };
    expect(spec.given([]).when(record(failed)).events()[0]!.data.result).toEqual(failed);
  });

  it("keeps the item's data out of the record: only its identity, never the personal data it carries", () => {
    const item = { id: 'p1', typeId: 'post', data: { text: 'my address is …' }, creator: null, subject: 'post:p1' };
    const [event] = spec
      .given([])
      .when({ ...record(), item })
      .events();
    expect(JSON.parse(JSON.stringify(event!.data.item))).toEqual({ id: 'p1', typeId: 'post' });
  });

  it('records a URL once: the first result stands', () => {
    const first = spec.given([]).when(record()).events();
    expect(spec.given(first).state.result).toEqual(hashed);
    spec
      .given(first)
      .when(record({ ok: false, url: URL, reason: 'network' }))
      .thenNothing();
  });

  it('records nothing over a result erased since (a GDPR deletion: it reads as null)', () => {
    const [recorded] = spec.given([]).when(record()).events();
    const erased = { ...recorded!, data: { ...recorded!.data, result: null } };
    expect(spec.given([erased]).state).toEqual({ recorded: true, result: null });
    spec.given([erased]).when(record()).thenNothing();
  });
});
