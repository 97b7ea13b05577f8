import { describe, expect, it } from 'vitest';
import { contentKey, contentSince, itemContentDigest } from './item-content.js';

const A = itemContentDigest({ data: { text: 'a scam' }, creator: null });
const B = itemContentDigest({ data: { text: 'edited, harmless' }, creator: null });
const versions = (...digests: Array<string | null>) => digests.map((digest, version) => ({ version, digest }));

describe('where an item content began (contentSince)', () => {
  it('is the version itself for a first version or a change', () => {
    expect(contentSince(0, A, [])).toBe(0);
    expect(contentSince(1, B, versions(A))).toBe(1);
  });

  it('goes back over a retry of the latest content, however often it was re-sent', () => {
    expect(contentSince(1, A, versions(A))).toBe(0);
    expect(contentSince(3, A, versions(B, A, A))).toBe(1);
  });

  it('starts anew for content that comes back after an edit (A, B, A), and again after A, B, A, B, A', () => {
    expect(contentSince(2, A, versions(A, B))).toBe(2);
    expect(contentSince(4, A, versions(A, B, A, B))).toBe(4);
  });

  it('stops at a version it cannot read (erased) or that is missing', () => {
    expect(contentSince(2, A, versions(A, null))).toBe(2);
    expect(
      contentSince(3, A, [
        { version: 0, digest: A },
        { version: 2, digest: A },
      ]),
    ).toBe(2);
  });

  it('keys the content by its digest and where it began', () => {
    expect(contentKey(A, 0)).not.toBe(contentKey(A, 2));
    expect(contentKey(A, 0)).not.toBe(contentKey(B, 0));
  });
});
