import { describe, expect, it } from 'vitest';
import { DomainError } from '#warden/kernel';
import { accountEmail, checkedEmail } from './user-email.js';

/** The detail and pointer of the 400 checkedEmail throws, or the address it takes. */
function outcome(email: unknown): string | { pointer: string | undefined; detail: string | undefined } {
  try {
    return checkedEmail(email);
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    return { pointer: error.details[0]?.pointer, detail: error.details[0]?.detail };
  }
}

describe('checkedEmail', () => {
  it('takes ordinary and international addresses, trimmed, NFC and lower-cased', () => {
    expect(outcome(' Ann@Example.COM ')).toBe('ann@example.com');
    expect(outcome('first.last+tag@sub.example.org')).toBe('first.last+tag@sub.example.org');
    expect(outcome("o'brien_x-y@example.com")).toBe("o'brien_x-y@example.com");
    expect(outcome('JOSE\u0301@exemplo.pt')).toBe('josé@exemplo.pt');
    expect(outcome('用户@例子.广告')).toBe('用户@例子.广告');
  });

  it('refuses control and format characters, spaces and the specials no address holds unquoted, pointing at /email', () => {
    const refused = [
      '"\u0000"@x.example',
      'a\u0000b@x.example',
      'a@x.example\u0000',
      'a\u0007b@x.example',
      'a\u007fb@x.example',
      'a\u0085b@x.example',
      'a\u202eb@x.example',
      'a\u200bb@x.example',
      'a\u00a0b@x.example',
      'a\u2028b@x.example',
      'a b@x.example',
      'a\tb@x.example',
      '"ab"@x.example',
      ...['(', ')', '<', '>', '[', ']', ':', ';', ',', '\\'].map((c) => `a${c}b@x.example`),
      'a@b@x.example',
    ];
    for (const email of refused) {
      expect(outcome(email), JSON.stringify(email)).toEqual({ pointer: '/email', detail: expect.stringMatching(/^Not an email address/) });
    }
    expect(outcome('a\u0000b@x.example')).toEqual({ pointer: '/email', detail: expect.stringContaining('no control characters') });
  });

  it('still refuses what is no address at all, too long, or not a string', () => {
    for (const email of ['', 'nobody', 'a@b', '@x.example', `${'a'.repeat(250)}@x.example`]) {
      expect(outcome(email), email).toEqual({ pointer: '/email', detail: expect.stringMatching(/^Not an email address/) });
    }
    expect(outcome(42)).toEqual({ pointer: '/email', detail: 'An email address is required' });
  });
});

describe('accountEmail', () => {
  it('takes exactly what checkedEmail takes, as it takes it, and answers null where checkedEmail refuses', () => {
    const addresses = [
      ' Ann@Example.COM ',
      'JOSE\u0301@exemplo.pt',
      '用户@例子.广告',
      '"ab"@x.example',
      'a\u200bb@x.example',
      'a\u0000b@x.example',
      'a b@x.example',
      'a;b@x.example',
      'a@b',
      `${'a'.repeat(250)}@x.example`,
    ];
    for (const email of addresses) {
      const checked = outcome(email);
      expect(accountEmail(email), JSON.stringify(email)).toBe(typeof checked === 'string' ? checked : null);
    }
  });
});
