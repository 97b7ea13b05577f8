import { randomBytes } from 'node:crypto';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LoginThrottle, type OpenedConsoleSession } from '#warden/identity';
import { DomainError, FixedClock, randomIds, systemClock } from '#warden/kernel';
import { type WardenConfig } from '#warden/platform';
import { AggregateStore, Keyring } from '#warden/storage';
import { makeIdpKeys, type IdpKeys, samlResponse } from '../../../../../test/support/saml-idp.js';
import { sqliteStores } from '../../../../../test/support/sqlite-stores.js';
import { ssoRefused } from '../../domain/sso-refusal.js';
import { requestBindingOf } from '../../saml/saml-request-ids.js';
import { type SamlOrganization, SamlServiceProvider } from '../../saml/saml-service-provider.js';
import type { SsoSettingsReader } from '../../saml/sso-settings.reader.js';
import type { SsoUserSignIn } from '../../sso-user-sign-in.js';
import { CompleteSamlLoginCommand } from './complete-saml-login.command.js';
import { CompleteSamlLoginHandler } from './complete-saml-login.handler.js';

const config = { publicUrl: 'http://warden.test', saml: { bodyLimitBytes: 256 * 1024, maxElements: 1000, allowSha1: false } } as WardenConfig;
/** The red team's post: 35 bytes of form, refused as unsigned. */
const JUNK = Buffer.from('<x></x>').toString('base64');

describe('the ACS throttles refusals per organization and client network, on the real embedded store', () => {
  let idp: IdpKeys;
  let stores: ReturnType<typeof sqliteStores> | undefined;
  beforeAll(async () => {
    idp = await makeIdpKeys();
  });
  afterEach(async () => {
    await stores?.close();
    stores = undefined;
  });

  /** The handler on the real stores and the real service provider; the organizations' settings and the user sign-in are the seams. */
  function acs() {
    stores = sqliteStores();
    const clock = new FixedClock(new Date());
    const aggregates = new AggregateStore(stores.events, clock, randomIds);
    const provider = new SamlServiceProvider(config, new Keyring([randomBytes(32)]), systemClock);
    const org = (orgId: string): SamlOrganization => ({
      orgId,
      settings: {
        saml_enabled: true,
        sso_url: 'https://test-idp.example/sso',
        cert: idp.cert,
        passwordLogin: true,
        jit: { enabled: true, defaultRoles: ['MODERATOR'] },
        roleAttribute: null,
        roleMap: {},
        wantAssertionsSigned: true,
      },
    });
    const settings = {
      samlOrganization: async (orgId: string) => {
        if (orgId === 'globex') throw ssoRefused('saml-disabled');
        return org(orgId);
      },
    } as unknown as SsoSettingsReader;
    const users = { signIn: async () => ({ sessionId: 's' }) as unknown as OpenedConsoleSession } as unknown as SsoUserSignIn;
    const handler = new CompleteSamlLoginHandler(settings, provider, aggregates, users, new LoginThrottle(stores.readStore, clock));
    const post = (orgId: string, clientAddress: string, response = JUNK, binding: string | null = null) =>
      handler.execute(new CompleteSamlLoginCommand(orgId, response, binding, clientAddress, { orgId, correlationId: 'c', actor: 'sso:saml' })).then(
        () => 'signed-in',
        (error: unknown) => {
          if (!(error instanceof DomainError)) throw error;
          return error.status === 429 ? `429 after ${error.headers['Retry-After']} s` : ((error as { reason?: string }).reason ?? String(error.status));
        },
      );
    const recorded = async (orgId?: string) =>
      (await stores!.events.readAll()).filter((e) => e.type === 'SsoLoginFailed' && (orgId === undefined || e.data['orgId'] === orgId)).length;
    /** A valid response to a sign-in started for `orgId`, and the binding its browser holds. */
    const valid = async (orgId: string) => {
      const { requestId } = await provider.loginRedirect(org(orgId));
      const response = samlResponse(idp, {
        audience: provider.entityId(orgId),
        acsUrl: provider.acsUrl(orgId),
        inResponseTo: requestId,
        email: 'ada@acme.example',
      });
      return [response, requestBindingOf(requestId)] as const;
    };
    return { post, recorded, valid };
  }

  const times = async (n: number, post: () => Promise<string>) => {
    const answers: string[] = [];
    for (let i = 0; i < n; i++) answers.push(await post());
    return answers;
  };

  it('records 10 refusals from a network, then answers 429 with Retry-After and records nothing; another network or organization is counted apart', async () => {
    const { post, recorded } = acs();
    const answers = await times(14, () => post('acme', '203.0.113.7'));
    expect(answers.slice(0, 10)).toEqual(Array(10).fill('unsigned'));
    expect(answers.slice(10)).toEqual(Array(4).fill('429 after 900 s'));
    expect(await recorded()).toBe(10);
    // An IPv6 /64 is one network, whatever address in it a client takes.
    const v6 = await times(12, () => post('acme', `2001:db8:1:2::${randomBytes(2).toString('hex')}`));
    expect(v6.filter((a) => a === 'unsigned')).toHaveLength(10);
    expect(v6.slice(10)).toEqual(Array(2).fill('429 after 900 s'));
    expect(await post('acme', '198.51.100.1')).toBe('unsigned');
    expect(await post('initech', '203.0.113.7')).toBe('unsigned');
    expect(await recorded()).toBe(22);
  });

  it('counts posts sent at once before any is read: a burst of 40 records at most 10, the rest 429', async () => {
    const { post, recorded } = acs();
    const answers = await Promise.all(Array.from({ length: 40 }, () => post('acme', '203.0.113.8')));
    const refused = answers.filter((a) => a === 'unsigned').length;
    // A count too contended to write refuses for a second rather than let a post through uncounted (LoginThrottle).
    expect(refused).toBeGreaterThan(0);
    expect(refused).toBeLessThanOrEqual(10);
    expect(answers.filter((a) => a.startsWith('429'))).toHaveLength(40 - refused);
    expect(await recorded()).toBe(refused);
  });

  it('records nothing for an organization without SAML (saml-disabled), however often, and does not throttle it', async () => {
    const { post, recorded } = acs();
    expect(await times(15, () => post('globex', '203.0.113.9'))).toEqual(Array(15).fill('saml-disabled'));
    expect(await recorded()).toBe(0);
  });

  it('takes a sign-in back: refusals interleaved with sign-ins are throttled at the tenth refusal, not before', async () => {
    const { post, recorded, valid } = acs();
    expect(await times(9, () => post('acme', '203.0.113.10'))).toEqual(Array(9).fill('unsigned'));
    for (let i = 0; i < 3; i++) expect(await post('acme', '203.0.113.10', ...(await valid('acme')))).toBe('signed-in');
    expect(await post('acme', '203.0.113.10')).toBe('unsigned');
    expect(await post('acme', '203.0.113.10')).toBe('429 after 900 s');
    // Throttled means throttled: a valid response from that network waits too.
    expect(await post('acme', '203.0.113.10', ...(await valid('acme')))).toBe('429 after 900 s');
    expect(await recorded('acme')).toBe(10);
  });
});
