import { describe, expect, it } from 'vitest';
import { DomainError } from '#warden/kernel';
import { checkedPassword, commonPasswords, isRepetitive, passwordProblem } from './password-policy.js';

const refusal = (password: unknown, context = {}) =>
  checkedPassword(password, context).then(
    () => null,
    (error: unknown) => error,
  );

describe('password policy (NIST SP 800-63B)', () => {
  it('refuses what issue 30 found accepted: 12 NULs, 12 spaces, aaaaaaaaaaaa; each with a 400 on /password saying why', async () => {
    const cases: Array<[string, RegExp]> = [
      ['\0'.repeat(12), /control characters/],
      [' '.repeat(12), /repeated or sequential/],
      ['aaaaaaaaaaaa', /repeated or sequential/],
    ];
    for (const [password, why] of cases) {
      const error = await refusal(password);
      expect(error).toBeInstanceOf(DomainError);
      expect(error).toMatchObject({ status: 400, type: '/errors/invalid-user-input', details: [{ pointer: '/password', detail: expect.stringMatching(why) }] });
    }
  });

  it('refuses any control character, C0, DEL or C1, wherever it is; and broken Unicode', async () => {
    const words = await commonPasswords();
    for (const control of ['\t', '\n', '\r', '\u0007', '\u007f', '\u0085', '\u009f']) {
      expect(passwordProblem(`correct horse${control}battery staple`, words)).toBe('control-character');
    }
    expect(passwordProblem('correct horse \ud800 battery staple', words)).toBe('not-text');
  });

  it('accepts printable Unicode and spaces, with no composition rules', async () => {
    const words = await commonPasswords();
    for (const password of [
      'correct horse battery staple',
      'all lower case words here',
      'ünïcödé påsswörd 🦊 ok',
      'Tr0ub4dor&3 is not the point',
      '8f3kq9vz2mxw',
    ]) {
      expect(passwordProblem(password, words), password).toBeNull();
    }
    expect(await checkedPassword('correct horse battery staple')).toBe('correct horse battery staple');
  });

  it('refuses passwords of the shipped list of common and breached ones, in any case, also with digits or symbols around them', async () => {
    const words = await commonPasswords();
    expect(words.size).toBeGreaterThan(40_000);
    // Listed as they are (12 characters or more): the list is the package's, not written here.
    for (const password of ['1qaz2wsx3edc', 'qwerty123456', 'unbelievable', 'LEAVEMEALONE', 'administrator']) {
      expect(passwordProblem(password, words), password).toBe('common');
    }
    for (const password of ['dragon2024!!!', '!!!Monkey1234', 'sunshine 2025', 'iloveyou.....']) {
      expect(passwordProblem(password, words), password).toBe('common');
    }
    expect(passwordProblem('a dragon in the garden', words)).toBeNull();
  });

  it('refuses repeated and sequential patterns, spaces aside', () => {
    for (const password of [
      'aaaaaaaaaaaa',
      'abababababab',
      'abcabcabcabc',
      'iloveyouiloveyou',
      'abcdefghijkl',
      'zyxwvutsrqpo',
      '789012345678',
      'aaaaaaaabcde',
      '111122223333',
      'abcdef123456',
      'lol lol lol lol',
    ]) {
      expect(isRepetitive(password), password).toBe(true);
    }
    for (const password of ['correct horse battery staple', 'aabbccddeeff', 'abcdefgh ijkx', '8f3kq9vz2mxw']) {
      expect(isRepetitive(password), password).toBe(false);
    }
  });

  it("refuses one built on the account's own address or the service's name", async () => {
    const words = await commonPasswords();
    const context = { email: 'Ann.Smith@Example.com' };
    expect(passwordProblem('ann.smith@example.com', words, context)).toBe('context');
    expect(passwordProblem('Ann.Smith2024!', words, context)).toBe('context');
    expect(passwordProblem('Warden Console!!', words)).toBe('context');
    expect(passwordProblem('ann smith likes long walks', words, context)).toBeNull();
  });

  it('keeps the length limits: 12 characters at least, 1024 bytes at most', async () => {
    expect(await refusal('eleven char')).toMatchObject({ details: [{ pointer: '/password', detail: 'A password has at least 12 characters' }] });
    expect(await refusal('é'.repeat(513))).toMatchObject({ details: [{ detail: /1024 bytes/ }] });
    expect(await refusal(42)).toMatchObject({ details: [{ detail: /required/ }] });
    expect(await checkedPassword('twelve chars')).toBe('twelve chars');
  });
});
