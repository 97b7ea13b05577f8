import { describe, expect, it } from 'vitest';
import { basicCredentialsOf, basicCredentialsProblem, hasUserInfo } from './url-credentials.js';

describe('URL user info as Basic credentials', () => {
  it('takes the user info out of the URL and makes it Authorization: Basic, percent-decoded as UTF-8', () => {
    expect(basicCredentialsOf('https://alice:s3cr%C3%A9t%3A%40@h.example:8443/cb?x=1#f')).toEqual({
      url: 'https://h.example:8443/cb?x=1#f',
      authorization: `Basic ${Buffer.from('alice:s3crét:@').toString('base64')}`,
    });
    expect(basicCredentialsOf('https://alice@h.example/cb')).toEqual({
      url: 'https://h.example/cb',
      authorization: `Basic ${Buffer.from('alice:').toString('base64')}`,
    });
  });

  it('says none for a URL without user info or no URL, invalid for user info that does not decode', () => {
    expect(basicCredentialsOf('https://h.example/cb')).toBeNull();
    expect(basicCredentialsOf('not a url')).toBeNull();
    expect(hasUserInfo('not a url')).toBe(false);
    expect(basicCredentialsOf('https://alice:s3%ZZ@h.example/cb')).toBe('invalid');
  });

  it('names what Basic cannot carry, never quoting the URL', () => {
    expect(basicCredentialsProblem('https://alice:s3cret@h.example/cb')).toBeNull();
    expect(basicCredentialsProblem('https://h.example/cb')).toBeNull();
    expect(basicCredentialsProblem('https://al%3Aice:s3cret@h.example/cb')).toBe(
      'has a user name holding a colon (%3A), which Authorization: Basic cannot carry',
    );
    expect(basicCredentialsProblem('https://alice:s3%ZZ@h.example/cb')).toMatch(/^has user info that is not valid percent-encoding/);
  });
});
