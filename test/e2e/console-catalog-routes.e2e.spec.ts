import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POST_AND_USER_TYPES, writeConfig } from '../support/config-files.js';
import { expectErrorBody } from '../support/error-body.js';
import { type Receiver, startReceiver } from '../support/http-receiver.js';
import { waitFor } from '../support/wait-for.js';
import { consoleLogin, consoleUserCommand, freshDataDir, runCli, runCliBatch, type RunningWarden, startWarden, testEnv } from '../support/warden-process.js';
import { freePort } from '../support/free-port.js';

const PASSWORD = 'correct horse battery staple';
const WELL_FORMED_UNKNOWN = '00000000-0000-8000-8000-000000000000';

const contains = (term: string) =>
  `{ conjunction: AND, conditions: [{ input: { field: text }, signal: { type: TEXT_CONTAINS, args: { terms: [${term}] } }, comparator: EQUALS, value: true }] }`;

/**
 * Organization `cons`: a capped rule acting through `remove` (to the receiver), an uncapped one
 * acting through `ping` (to `pingUrl`), a draft that never matches; a policy tree; wellness set.
 */
const consConfig = (receiverUrl: string, pingUrl: string, pingsName = 'Pings') => `
org:
  id: cons
  name: Console Org
  settings:
    requireDecisionReason: true
    wellness: { blur: 3, greyscale: false, breakAfterItems: 5 }
${POST_AND_USER_TYPES}
policies:
  - { id: abuse, name: Abuse, penalty: MEDIUM }
  - { id: abuse-spam, name: Spam, parentId: abuse, penalty: LOW }
actions:
  - { id: remove, name: Remove, kind: CUSTOMER_DEFINED_ACTION, itemTypeIds: [post], callback: { url: "${receiverUrl}/hooks/remove" } }
  - { id: ping, name: Ping, kind: CUSTOMER_DEFINED_ACTION, itemTypeIds: [post], callback: { url: "${pingUrl}" } }
  - { id: ban-user, name: Ban user, kind: CUSTOMER_DEFINED_ACTION, itemTypeIds: [user], callback: { url: "${receiverUrl}/hooks/ban" } }
rules:
  - { id: capped-scams, name: Capped scams, status: LIVE, itemTypeIds: [post], actionIds: [remove], policyIds: [abuse-spam], maxDailyActions: 3, conditionSet: ${contains('scam')} }
  - { id: idle, name: Idle, status: DRAFT, itemTypeIds: [post], actionIds: [remove], conditionSet: ${contains('never-ever')} }
  - { id: lapsed, name: Lapsed, status: LIVE, expiresAt: '2026-01-01T00:00:00Z', itemTypeIds: [post], actionIds: [remove], conditionSet: ${contains('scam')} }
  - { id: pings, name: ${pingsName}, status: LIVE, itemTypeIds: [post], actionIds: [ping], conditionSet: ${contains('ping')} }
queues:
  - { id: default, name: Default, isDefault: true }
`;

const rivalConfig = (receiverUrl: string) => `
org: { id: rival, name: Rival }
${POST_AND_USER_TYPES}
actions:
  - { id: remove, name: Remove, kind: CUSTOMER_DEFINED_ACTION, itemTypeIds: [post], callback: { url: "${receiverUrl}/hooks/rival" } }
rules:
  - { id: scams, name: Scams, status: LIVE, itemTypeIds: [post], actionIds: [remove], conditionSet: ${contains('scam')} }
`;

interface Delivery {
  deliveryId: string;
  actionId: string | null;
  status: string;
  cycle: number;
  attempts: number;
  item: { id: string; typeId: string };
}
interface DeliveryPage {
  deliveries: Delivery[];
  total: number;
  limit: number;
  offset: number;
  nextOffset: number | null;
}
interface RuleSummary {
  id: string;
  name: string;
  status: string;
  expiresAt: string | null;
  itemTypeIds: string[];
  actionIds: string[];
  maxDailyActions: number | null;
  actionsToday: number;
  recentMatches: Array<{ itemId: string; itemTypeId: string; version: number; evaluatedAt: string; environment: string; actionIds: string[]; capped: boolean }>;
}

describe('console routes: settings, policies and actions, callback deliveries, rules', () => {
  const dataDir = freshDataDir();
  let receiver: Receiver;
  let env: NodeJS.ProcessEnv;
  let warden: RunningWarden;
  let consKey: string;
  let rivalKey: string;
  let pingUrl: string;
  const sessions: Record<'admin' | 'moderator' | 'analyst', { cookie: string; csrfToken: string }> = {} as never;

  beforeAll(async () => {
    // The redelivered ping is held a moment, so a second redelivery finds its attempt under way.
    receiver = await startReceiver((req, res) => {
      if (req.url === '/hooks/slow') setTimeout(() => res.end('{}'), 1500);
      else res.end('{}');
    });
    pingUrl = `http://127.0.0.1:${await freePort()}/hooks/ping`;
    env = testEnv(dataDir, { WARDEN_CALLBACK_RETRY_SCHEDULE: '20ms,20ms' });
    // One CLI process for the set-up (test/support/warden-process.ts, runCliBatch).
    const [, , consMade, rivalMade] = await runCliBatch(env, [
      ['apply', writeConfig(consConfig(receiver.url, pingUrl))],
      ['apply', writeConfig(rivalConfig(receiver.url))],
      ['api-key', 'create', '--org', 'cons'],
      ['api-key', 'create', '--org', 'rival'],
      consoleUserCommand('cons', 'admin@cons.example', PASSWORD, ['ADMIN']),
      consoleUserCommand('cons', 'moderator@cons.example', PASSWORD, ['MODERATOR']),
      consoleUserCommand('cons', 'analyst@cons.example', PASSWORD, ['ANALYST']),
    ]);
    [consKey, rivalKey] = [consMade!.at(-1)!, rivalMade!.at(-1)!];
    warden = await startWarden(env);
    for (const role of ['admin', 'moderator', 'analyst'] as const) sessions[role] = await consoleLogin(warden.url, `${role}@cons.example`, PASSWORD);

    const submit = async (key: string, items: unknown[]) => {
      const res = await fetch(`${warden.url}/api/v1/items/async`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ items }),
      });
      expect(res.status, await res.clone().text()).toBe(202);
    };
    await submit(consKey, [
      { id: 'p1', typeId: 'post', data: { text: 'a scam offer' } },
      { id: 'p2', typeId: 'post', data: { text: 'ping me' } },
      { id: 'p3', typeId: 'post', data: { text: 'nothing to see' } },
    ]);
    await submit(rivalKey, [{ id: 'r1', typeId: 'post', data: { text: 'a rival scam' } }]);
  }, 120_000);
  afterAll(async () => {
    await warden?.stop();
    await receiver?.close();
  });

  const get = (path: string, session?: { cookie: string }) => fetch(`${warden.url}${path}`, { headers: session ? { cookie: session.cookie } : {} });
  const post = (path: string, session?: { cookie: string; csrfToken: string }) =>
    fetch(`${warden.url}${path}`, { method: 'POST', headers: session ? { cookie: session.cookie, 'x-csrf-token': session.csrfToken } : {} });
  const customer = async (path: string, key = consKey) => {
    const res = await fetch(`${warden.url}${path}`, { headers: { 'x-api-key': key } });
    expect(res.status).toBe(200);
    return res.json() as Promise<unknown>;
  };
  const consoleDeliveries = async (query = '') => {
    const res = await get(`/api/console/v1/callbacks/deliveries${query}`, sessions.admin);
    expect(res.status, await res.clone().text()).toBe(200);
    return (await res.json()) as DeliveryPage;
  };
  const deliveryOf = (page: DeliveryPage, actionId: string) => page.deliveries.find((d) => d.actionId === actionId);
  const rules = async (session = sessions.analyst) => {
    const res = await get('/api/console/v1/rules', session);
    expect(res.status, await res.clone().text()).toBe(200);
    return ((await res.json()) as { rules: RuleSummary[] }).rules;
  };

  describe('GET /api/console/v1/settings (USE_CONSOLE)', () => {
    it('answers every role with the organization, its decision settings and the configured wellness', async () => {
      for (const session of Object.values(sessions)) {
        const res = await get('/api/console/v1/settings', session);
        expect(res.status).toBe(200);
        expect(await res.json()).toEqual({
          org: { id: 'cons', name: 'Console Org' },
          requireDecisionReason: true,
          requirePolicyForDecisions: false,
          wellness: { blur: 3, greyscale: false, breakAfterItems: 5, loadMedia: 'ON_OPEN' },
        });
      }
    });

    it('is 401 without a session', async () => {
      await expectErrorBody(await get('/api/console/v1/settings'), 401, '/errors/unauthorized');
    });
  });

  describe('GET /api/console/v1/policies and /actions (VIEW_MRT)', () => {
    it("answers a moderator with what the customer routes answer the organization's key: the policy tree and the actions", async () => {
      for (const path of ['policies', 'actions'] as const) {
        const res = await get(`/api/console/v1/${path}`, sessions.moderator);
        expect(res.status).toBe(200);
        expect(await res.json()).toEqual(await customer(`/api/v1/${path}`));
      }
      const policies = ((await (await get('/api/console/v1/policies', sessions.admin)).json()) as { policies: Array<{ id: string; parentId: string | null }> })
        .policies;
      expect(policies.map((p) => [p.id, p.parentId])).toEqual([
        ['abuse', null],
        ['abuse-spam', 'abuse'],
      ]);
      const actions = (
        (await (await get('/api/console/v1/actions', sessions.admin)).json()) as { actions: Array<{ id: string; actionType: string; itemTypeIds: string[] }> }
      ).actions;
      const customFor = (typeId: string) => actions.filter((a) => a.actionType === 'CUSTOM_ACTION' && a.itemTypeIds.includes(typeId)).map((a) => a.id);
      expect(customFor('user')).toEqual(['ban-user']);
      expect(customFor('post')).toEqual(['ping', 'remove']);
      expect(JSON.stringify(actions)).not.toContain('hooks');
    });

    it('is 403 for an analyst (no moderator role) and 401 without a session', async () => {
      for (const path of ['policies', 'actions']) {
        await expectErrorBody(await get(`/api/console/v1/${path}`, sessions.analyst), 403, '/errors/forbidden');
        await expectErrorBody(await get(`/api/console/v1/${path}`), 401, '/errors/unauthorized');
      }
    });
  });

  describe('callback deliveries (MANAGE_CALLBACKS)', () => {
    it("lists the organization's deliveries as the customer route does: a delivered one, and one dead-lettered at a closed port", async () => {
      const page = await waitFor(async () => {
        const found = await consoleDeliveries();
        return deliveryOf(found, 'remove')?.status === 'delivered' && deliveryOf(found, 'ping')?.status === 'dead' && found;
      }, 'remove delivered and ping dead-lettered');
      expect(page).toEqual(await customer('/api/v1/callbacks/deliveries'));
      expect(page.deliveries.map((d) => d.item.id).sort()).toEqual(['p1', 'p2']);
      expect(deliveryOf(page, 'ping')).toMatchObject({ item: { id: 'p2', typeId: 'post' }, cycle: 1, attempts: 3 });

      const dead = await consoleDeliveries('?status=dead&limit=1&offset=0');
      expect(dead).toMatchObject({ total: 1, limit: 1, offset: 0, nextOffset: null });
      expect(dead.deliveries.map((d) => d.actionId)).toEqual(['ping']);
      expect(await consoleDeliveries('?limit=1&offset=1')).toMatchObject({ total: 2, offset: 1, nextOffset: null });
    });

    it('refuses bad filters with the pointer of the field', async () => {
      const bad = (query: string) => get(`/api/console/v1/callbacks/deliveries?${query}`, sessions.admin);
      await expectErrorBody(await bad('status=lost'), 400, '/errors/invalid-user-input', '/status');
      await expectErrorBody(await bad('limit=0'), 400, '/errors/invalid-user-input', '/limit');
      await expectErrorBody(await bad('offset=-1'), 400, '/errors/invalid-user-input', '/offset');
    });

    it('is 403 for a moderator and an analyst, 401 without a session', async () => {
      const { deliveryId } = deliveryOf(await consoleDeliveries(), 'ping')!;
      const redeliver = `/api/console/v1/callbacks/deliveries/${deliveryId}/redeliver`;
      for (const session of [sessions.moderator, sessions.analyst]) {
        await expectErrorBody(await get('/api/console/v1/callbacks/deliveries', session), 403, '/errors/forbidden');
        await expectErrorBody(await post(redeliver, session), 403, '/errors/forbidden');
      }
      await expectErrorBody(await get('/api/console/v1/callbacks/deliveries'), 401, '/errors/unauthorized');
      await expectErrorBody(await post(redeliver), 401, '/errors/unauthorized');
      expect(deliveryOf(await consoleDeliveries(), 'ping')).toMatchObject({ status: 'dead', cycle: 1 });
    });

    it("answers 400 for a malformed delivery id, 404 for an unknown one and for another organization's", async () => {
      const redeliver = (id: string) => post(`/api/console/v1/callbacks/deliveries/${id}/redeliver`, sessions.admin);
      await expectErrorBody(await redeliver('not-a-delivery'), 400, '/errors/invalid-user-input', '/deliveryId');
      await expectErrorBody(await redeliver(WELL_FORMED_UNKNOWN), 404, '/errors/not-found');
      const rival = await waitFor(async () => {
        const page = (await customer('/api/v1/callbacks/deliveries', rivalKey)) as DeliveryPage;
        return page.deliveries[0];
      }, "the rival organization's delivery");
      await expectErrorBody(await redeliver(rival.deliveryId), 404, '/errors/not-found');
      expect((await consoleDeliveries()).deliveries.some((d) => d.deliveryId === rival.deliveryId)).toBe(false);
    });

    it('redelivers the dead-lettered delivery to the URL configured now: 202, a new cycle, 409 while its attempt is under way, then delivered', async () => {
      // The ping action now points at the receiver (a slow path). Redelivered at once, without
      // waiting for the server to have read the new configuration: the redelivery itself catches up.
      const applied = await runCli(['apply', writeConfig(consConfig(receiver.url, `${receiver.url}/hooks/slow`, 'Pings again'))], env);
      expect(applied.code, applied.stderr).toBe(0);

      const { deliveryId } = deliveryOf(await consoleDeliveries(), 'ping')!;
      const path = `/api/console/v1/callbacks/deliveries/${deliveryId}/redeliver`;
      const first = await post(path, sessions.admin);
      expect(first.status, await first.clone().text()).toBe(202);
      expect(await first.json()).toEqual({ deliveryId, cycle: 2 });
      await expectErrorBody(await post(path, sessions.admin), 409, '/errors/conflict');

      const delivered = await waitFor(async () => {
        const d = deliveryOf(await consoleDeliveries(), 'ping')!;
        return d.status === 'delivered' && d;
      }, 'the redelivered ping');
      expect(delivered).toMatchObject({ deliveryId, cycle: 2, attempts: 1 });
      const sent = receiver.requests.filter((r) => r.url === '/hooks/slow');
      expect(sent.map((r) => r.headers['service-delivery-id'])).toEqual([deliveryId]);
    });
  });

  describe('GET /api/console/v1/rules (VIEW_RULES)', () => {
    it("lists every rule with today's actions and its latest matches", async () => {
      const listed = await waitFor(async () => {
        const found = await rules();
        return found.every((r) => r.id === 'idle' || r.id === 'lapsed' || r.recentMatches.length > 0) && found;
      }, 'both live rules matched');
      expect(listed.map((r) => r.id)).toEqual(['capped-scams', 'idle', 'lapsed', 'pings']);
      const [capped, idle, lapsed, pings] = listed as [RuleSummary, RuleSummary, RuleSummary, RuleSummary];
      expect(capped).toMatchObject({
        name: 'Capped scams',
        status: 'LIVE',
        expiresAt: null,
        itemTypeIds: ['post'],
        actionIds: ['remove'],
        maxDailyActions: 3,
        actionsToday: 1,
      });
      expect(capped.recentMatches).toEqual([
        { itemId: 'p1', itemTypeId: 'post', version: 0, evaluatedAt: expect.any(String), environment: 'LIVE', actionIds: ['remove'], capped: false },
      ]);
      expect(Date.parse(capped.recentMatches[0]!.evaluatedAt)).toBeGreaterThan(Date.now() - 120_000);
      expect(pings).toMatchObject({ maxDailyActions: null, actionsToday: 1, recentMatches: [expect.objectContaining({ itemId: 'p2', actionIds: ['ping'] })] });
      expect(idle).toEqual({
        id: 'idle',
        name: 'Idle',
        status: 'DRAFT',
        expiresAt: null,
        itemTypeIds: ['post'],
        actionIds: ['remove'],
        maxDailyActions: null,
        actionsToday: 0,
        recentMatches: [],
      });
      // LIVE in the file, past its expiresAt: listed EXPIRED, and it ran on none of the items its
      // condition matches (capped-scams matched p1 with the same one).
      expect(lapsed).toEqual({
        id: 'lapsed',
        name: 'Lapsed',
        status: 'EXPIRED',
        expiresAt: '2026-01-01T00:00:00.000Z',
        itemTypeIds: ['post'],
        actionIds: ['remove'],
        maxDailyActions: null,
        actionsToday: 0,
        recentMatches: [],
      });
    });

    it('counts another matching item, newest match first (as an ADMIN sees it)', async () => {
      const res = await fetch(`${warden.url}/api/v1/items/async`, {
        method: 'POST',
        headers: { 'x-api-key': consKey, 'content-type': 'application/json' },
        body: JSON.stringify({ items: [{ id: 'p4', typeId: 'post', data: { text: 'another scam' } }] }),
      });
      expect(res.status).toBe(202);
      const capped = await waitFor(async () => {
        const found = (await rules(sessions.admin)).find((r) => r.id === 'capped-scams')!;
        return found.recentMatches.length === 2 && found;
      }, 'the second match of capped-scams');
      expect(capped.actionsToday).toBe(2);
      expect(capped.recentMatches.map((m) => m.itemId)).toEqual(['p4', 'p1']);
    });

    it('is 403 for a moderator and 401 without a session', async () => {
      await expectErrorBody(await get('/api/console/v1/rules', sessions.moderator), 403, '/errors/forbidden');
      await expectErrorBody(await get('/api/console/v1/rules'), 401, '/errors/unauthorized');
    });
  });
});
