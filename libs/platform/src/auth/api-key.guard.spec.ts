import { describe, expect, it } from 'vitest';
import { DomainError } from '#warden/kernel';
import { authenticateApiKey } from './api-key.guard.js';
import type { AuthFailureLimit } from './auth-failure-limit.js';
import type { ApiKeyAuthenticator, AuthenticationResult, Principal } from './principal.js';

const principal: Principal = { orgId: 'acme', keyId: 'k1', team: null };

/** A request as the guard sees it, with a failure budget that records what it is charged. */
function request(headers: Record<string, string | string[]>) {
  const charged: string[] = [];
  const limit: AuthFailureLimit = { charge: async (address) => void charged.push(address) };
  const req = { headers, ip: '203.0.113.7', wardenAuthFailureLimit: limit } as unknown as Parameters<typeof authenticateApiKey>[0];
  return { req, charged };
}

const answering = (result: AuthenticationResult): ApiKeyAuthenticator & { asked: string[] } => {
  const asked: string[] = [];
  return { asked, authenticate: async (key) => (asked.push(key), result) };
};

async function refusal(promise: Promise<unknown>): Promise<DomainError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DomainError);
  return error as DomainError;
}

describe('authenticateApiKey', () => {
  it('sets the principal of an active key, charging no failure', async () => {
    const { req, charged } = request({ 'x-api-key': '  wdn_key ' });
    const authenticator = answering({ outcome: 'ok', principal });
    await authenticateApiKey(req, authenticator);
    expect((req as { principal?: Principal }).principal).toEqual(principal);
    expect(authenticator.asked).toEqual(['wdn_key']);
    expect(charged).toEqual([]);
  });

  it.each([
    ['revoked', 'The API key was revoked'],
    ['rotated', 'The API key was rotated out'],
  ] as const)('refuses a %s key with 403 saying so, charging no failure (the key was real)', async (reason, detail) => {
    const { req, charged } = request({ 'x-api-key': 'wdn_key' });
    const error = await refusal(authenticateApiKey(req, answering({ outcome: 'inactive', reason })));
    expect({ status: error.status, kind: error.kind, detail: error.details[0]?.detail }).toEqual({ status: 403, kind: 'forbidden', detail });
    expect((req as { principal?: Principal }).principal).toBeUndefined();
    expect(charged).toEqual([]);
  });

  it('refuses an unknown key with 401 and charges the address', async () => {
    const { req, charged } = request({ 'x-api-key': 'wdn_invented' });
    const error = await refusal(authenticateApiKey(req, answering({ outcome: 'unknown' })));
    expect({ status: error.status, detail: error.details[0]?.detail }).toEqual({ status: 401, detail: 'The API key is not valid' });
    expect(charged).toEqual(['203.0.113.7']);
  });

  it.each<Record<string, string>>([{}, { 'x-api-key': '' }, { 'x-api-key': '   ' }])(
    'refuses a missing key (%o) with 401 without asking the authenticator',
    async (headers) => {
      const { req, charged } = request(headers);
      const authenticator = answering({ outcome: 'ok', principal });
      const error = await refusal(authenticateApiKey(req, authenticator));
      expect({ status: error.status, detail: error.details[0]?.detail }).toEqual({ status: 401, detail: 'The X-API-KEY header is missing' });
      expect(authenticator.asked).toEqual([]);
      expect(charged).toEqual(['203.0.113.7']);
    },
  );
});
