import { describe, expect, it } from 'vitest';
import { DomainError } from '#warden/kernel';
import { checkSameOrganization, readItemSubmissionEvent, subjectOrganization } from './item-submission-event.js';

const valid = { type: 'ITEM_SUBMISSION_EVENT', version: 1, orgId: 'acme', eventId: 'evt-1', items: [{ id: 'p1', typeId: 'post', data: {} }] };

function problems(value: unknown): Array<{ pointer?: string; detail?: string }> {
  try {
    readItemSubmissionEvent(value);
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).status).toBe(400);
    return [...(error as DomainError).details];
  }
  throw new Error('expected a refusal');
}

describe('ITEM_SUBMISSION_EVENT envelope', () => {
  it('reads a valid envelope, leaving the items to ingestion', () => {
    expect(readItemSubmissionEvent(valid)).toEqual({ orgId: 'acme', eventId: 'evt-1', items: valid.items });
  });

  it('names every problem with its pointer', () => {
    const found = problems({ type: 'OTHER', version: 2, orgId: 'Acme!', eventId: '', items: [], item: [] });
    expect(found.map((p) => p.pointer)).toEqual(['/type', '/version', '/orgId', '/eventId', '/items', '/item']);
  });

  it.each([null, [], 'text', 42])('refuses %o as a whole', (value) => {
    expect(problems(value)).toEqual([expect.objectContaining({ pointer: '' })]);
  });

  it('refuses an event id with control characters (it names the submission for good)', () => {
    expect(problems({ ...valid, eventId: 'a\nb' })).toEqual([expect.objectContaining({ pointer: '/eventId', detail: 'expected no control characters' })]);
  });

  it('takes the organization from a subject of the configured shape only', () => {
    expect(subjectOrganization('warden.acme.items', 'warden')).toBe('acme');
    expect(subjectOrganization('eu.warden.acme.items', 'eu.warden')).toBe('acme');
    expect(subjectOrganization('warden.ACME.items', 'warden')).toBeUndefined();
    expect(subjectOrganization('warden.acme.items', 'other')).toBeUndefined();
    expect(subjectOrganization('warden.acme.x.items', 'warden')).toBeUndefined();
  });

  it("refuses an envelope for another organization than its subject's (403)", () => {
    expect(() => checkSameOrganization('acme', { orgId: 'acme' })).not.toThrow();
    expect(() => checkSameOrganization('acme', { orgId: 'globex' })).toThrow(expect.objectContaining({ status: 403 }));
  });
});
