import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventCount, rawLog } from '../support/config-files.js';
import { type Receiver, startReceiver } from '../support/http-receiver.js';
import { waitFor } from '../support/wait-for.js';
import { freshDataDir, runServerToExit, type RunningWarden, startConfigured, startWarden, testEnv } from '../support/warden-process.js';

/** Issue 11, defect 8: secrets stay out of the log, the logs and other users' reach. */

/** Whether any file of the data directory (the database, its -wal and -shm, the key) holds `text`. */
const dataFilesContain = (dataDir: string, text: string) => readdirSync(dataDir).some((name) => readFileSync(join(dataDir, name)).includes(Buffer.from(text)));

async function withOrg(dataDir: string, config: string, extraEnv: Record<string, string>) {
  const file = join(freshDataDir(), 'org.yaml');
  writeFileSync(file, config);
  const env = testEnv(dataDir, extraEnv);
  const { warden, key } = await startConfigured(env, file, 'secrets');
  const submit = async (items: unknown[]) => {
    const res = await fetch(`${warden.url}/api/v1/items/async/`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ items }),
    });
    expect(res.status).toBe(202);
  };
  return { env, key, warden, submit };
}

describe('a callback URL with a token in its query string', () => {
  const TOKEN = 's3cret-cb-7d41a9';
  const APPEAL_TOKEN = 's3cret-appeal-52be07';
  const dataDir = freshDataDir();
  let receiver: Receiver;
  let warden: RunningWarden;
  let key: string;
  let submit: (items: unknown[]) => Promise<void>;

  beforeAll(async () => {
    receiver = await startReceiver((_req, res: ServerResponse) => res.end('{"ok":true}'));
    const config = `org: { id: secrets, name: Secrets }
itemTypes:
  - { id: post, name: Post, kind: CONTENT, fields: [{ name: text, type: STRING, required: true }] }
policies:
  - { id: scam, name: Scam, penalty: HIGH }
actions:
  - id: remove
    name: Remove
    kind: CUSTOMER_DEFINED_ACTION
    itemTypeIds: [post]
    callback: { url: "\${RECEIVER_URL}/cb?token=${TOKEN}", headers: { X-Tenant: secrets } }
rules:
  - id: remove-scams
    name: Remove scams
    status: LIVE
    itemTypeIds: [post]
    actionIds: [remove]
    policyIds: [scam]
    conditionSet: { conjunction: AND, conditions: [{ input: { field: text }, signal: { type: TEXT_CONTAINS, args: { terms: [scam] } }, comparator: EQUALS, value: true }] }
appeals:
  callback: { url: "https://user:pa55@appeals.example/hook?token=${APPEAL_TOKEN}" }
`;
    ({ warden, key, submit } = await withOrg(dataDir, config, { RECEIVER_URL: receiver.url }));
  }, 60_000);
  afterAll(async () => {
    await warden?.stop();
    await receiver?.close();
  });

  it('delivers to the whole URL, and keeps the token out of the data files, every event and the logs', async () => {
    await submit([{ id: 'p-1', typeId: 'post', data: { text: 'a scam' } }]);
    const [request] = await waitFor(() => (receiver.requests.length > 0 ? receiver.requests : undefined), 'the callback');
    expect(request!.url).toBe(`/cb?token=${TOKEN}`);
    expect(request!.headers['x-tenant']).toBe('secrets');
    await waitFor(() => eventCount(dataDir, "type = 'CallbackDelivered'") > 0, 'the CallbackDelivered event');
    // A request's own query string stays out of the access log too: it logs the route.
    const probe = await fetch(`${warden.url}/api/v1/callbacks/deliveries?token=${TOKEN}`, { headers: { 'x-api-key': key, 'x-request-id': 'token-probe' } });
    await probe.arrayBuffer();
    const line = await waitFor(
      () =>
        warden
          .logs()
          .split('\n')
          .find((l) => l.includes('"requestId":"token-probe"')),
      'the access line of the probe',
    );
    expect(line).toContain('"route":"/api/v1/callbacks/deliveries"');

    // The API shows where deliveries go, without the query string. Read first: the data files are
    // searched below once the read model has written the delivery. The listing reads the deliveries
    // read model, which follows the log (the CallbackDelivered awaited above) a moment behind.
    const deliveries = await waitFor(async () => {
      const res = await fetch(`${warden.url}/api/v1/callbacks/deliveries`, { headers: { 'x-api-key': key } });
      const page = (await res.json()) as { deliveries: Array<{ destination: string; status: string }> };
      return page.deliveries.some((d) => d.status === 'delivered') && page.deliveries;
    }, 'the delivery listed as delivered');
    expect(deliveries).toEqual([expect.objectContaining({ destination: `${receiver.url}/cb`, status: 'delivered' })]);

    const log = rawLog(dataDir);
    expect(log).toContain('ActionDefined');
    expect(log).toContain('CallbackDeliveryRequested');
    for (const secret of [TOKEN, APPEAL_TOKEN, 'pa55']) {
      expect(log, secret).not.toContain(secret);
      expect(dataFilesContain(dataDir, secret), `${secret} in the data files`).toBe(false);
      expect(warden.logs(), `${secret} in the server's log`).not.toContain(secret);
    }
  });
});

describe('a pre-signed image URL that cannot be hashed', () => {
  const SIGNATURE = '9f2c4be1d07a5e36c8b1f4a2e9d0c7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0';
  const CREDENTIAL = 'AKIAEXAMPLE7Q2RZ';
  const dataDir = freshDataDir();
  let images: Receiver;
  let warden: RunningWarden;
  let submit: (items: unknown[]) => Promise<void>;

  beforeAll(async () => {
    // The storage refuses the fetch, as a bucket does once a pre-signed URL has expired.
    images = await startReceiver((_req, res: ServerResponse) => {
      res.statusCode = 403;
      res.end('<Error><Code>AccessDenied</Code></Error>');
    });
    const config = `org: { id: secrets, name: Secrets }
itemTypes:
  - { id: post, name: Post, kind: CONTENT, fields: [{ name: text, type: STRING }, { name: photo, type: IMAGE }] }
actions:
  - { id: remove, name: Remove, kind: CUSTOMER_DEFINED_ACTION, itemTypeIds: [post], callback: { url: "http://127.0.0.1:9/x" } }
hashBanks:
  - { id: known-bad, name: Known bad, hashType: MD5, hashes: ["${'0'.repeat(32)}"] }
rules:
  - id: known-bad-image
    name: Known bad image
    status: LIVE
    itemTypeIds: [post]
    actionIds: [remove]
    conditionSet: { conjunction: OR, conditions: [{ input: { builtin: ANY_IMAGE }, signal: { type: IMAGE_HASH_MATCH }, comparator: EQUALS, value: true }] }
`;
    ({ warden, submit } = await withOrg(dataDir, config, {}));
  }, 60_000);
  afterAll(async () => {
    await warden?.stop();
    await images?.close();
  });

  it('fetches the whole URL, logs it by its item and a digest, and records it sealed and without its query string', async () => {
    const photo = `${images.url}/uploads/cat.jpg?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=${CREDENTIAL}&X-Amz-Signature=${SIGNATURE}`;
    await submit([{ id: 'p-1', typeId: 'post', data: { text: 'look', photo } }]);
    await waitFor(() => images.requests.length > 0, 'the image fetch');
    expect(images.requests[0]!.url).toBe(new URL(photo).pathname + new URL(photo).search);
    await waitFor(() => eventCount(dataDir, "type = 'ItemEvaluated'") > 0, 'the evaluation');
    const line = await waitFor(
      () =>
        warden
          .logs()
          .split('\n')
          .find((l) => l.includes('"media not hashed"')),
      'the "media not hashed" log line',
    );
    expect(JSON.parse(line)).toMatchObject({ item: { typeId: 'post', id: 'p-1' }, media: expect.stringMatching(/^[0-9a-f]{32}$/), reason: 'http-403' });
    expect(line).not.toContain('/uploads/cat.jpg');

    expect(eventCount(dataDir, "type = 'MediaHashed'")).toBe(1);
    // Sealed under the item's subject (the URL's path is the user's too).
    expect(rawLog(dataDir)).not.toContain('/uploads/cat.jpg');
    for (const secret of [SIGNATURE, CREDENTIAL]) {
      expect(warden.logs(), `${secret} in the server's log`).not.toContain(secret);
      expect(rawLog(dataDir), `${secret} in an event`).not.toContain(secret);
      expect(dataFilesContain(dataDir, secret), `${secret} in the data files`).toBe(false);
    }
  });
});

describe('the data directory and its files', () => {
  const mode = (path: string) => statSync(path).mode & 0o777;
  const files = ['warden.db', 'warden.db-wal', 'warden.db-shm', 'read-models.db', 'read-models.db-wal', 'read-models.db-shm', 'secret.key'];

  const expectPrivate = async (dataDir: string) => {
    await waitFor(() => files.every((f) => existsSync(join(dataDir, f))), 'the database, its -wal and -shm, and the key');
    expect(mode(dataDir).toString(8)).toBe('700');
    for (const name of readdirSync(dataDir)) expect(`${name} ${mode(join(dataDir, name)).toString(8)}`).toBe(`${name} 600`);
  };

  it('creates the directory 0700 and every file in it 0600, and tightens a directory an older release left open', async () => {
    // Not there yet: the server creates it.
    const dataDir = join(freshDataDir(), 'data');
    const env = testEnv(dataDir);
    let warden = await startWarden(env);
    try {
      await expectPrivate(dataDir);
    } finally {
      await warden.stop();
    }

    // As releases up to 0.1.0 left it: readable by every user.
    chmodSync(dataDir, 0o755);
    for (const name of readdirSync(dataDir)) chmodSync(join(dataDir, name), 0o644);
    warden = await startWarden(env);
    try {
      await expectPrivate(dataDir);
    } finally {
      await warden.stop();
    }
  });
});

describe('the secret key in a file outside the data directory (WARDEN_SECRET_KEY_FILE)', () => {
  it('seals and opens with the key of that file in the CLI and the server, keeps no key in the data directory, and refuses a file others can read', async () => {
    const key = randomBytes(32).toString('base64');
    const file = join(freshDataDir(), 'warden.key');
    writeFileSync(file, `${key}\n`);
    chmodSync(file, 0o644);
    const dataDir = freshDataDir();
    const receiver = await startReceiver((_req, res: ServerResponse) => res.end('{"ok":true}'));
    const env = testEnv(dataDir, {
      WARDEN_SECRET_KEY_FILE: file,
      RECEIVER_URL: receiver.url,
      DOWN_URL: 'http://127.0.0.1:9',
      HOOK_TOKEN: 'hook-token-in-a-sealed-header',
    });
    let warden: RunningWarden | undefined;
    try {
      const refused = await runServerToExit(env);
      expect(refused.code).toBe(1);
      expect(refused.stderr.trim()).toBe(
        `Cannot start: Invalid configuration: WARDEN_SECRET_KEY_FILE names ${file}, which every user can access (mode 0644): make it readable by Warden's user only (chmod 600)`,
      );

      chmodSync(file, 0o600);
      // The CLI seals the callback's headers under the file's key; the server opens them to send.
      const configured = await startConfigured(env, join(import.meta.dirname, '../fixtures/callbacks-org.yaml'), 'hooks');
      warden = configured.warden;
      const apiKey = configured.key;
      const res = await fetch(`${warden.url}/api/v1/items/async/`, {
        method: 'POST',
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ items: [{ id: 'p-1', typeId: 'post', data: { text: 'a scam' } }] }),
      });
      expect(res.status).toBe(202);
      const delivered = await waitFor(() => receiver.requests.find((r) => r.url.startsWith('/hooks/remove')), 'the callback');
      expect(delivered.headers['authorization']).toBe('Bearer hook-token-in-a-sealed-header');

      expect(existsSync(join(dataDir, 'secret.key'))).toBe(false);
      expect(dataFilesContain(dataDir, key), 'the key in the data files').toBe(false);
      expect(dataFilesContain(dataDir, 'hook-token-in-a-sealed-header'), 'the header in the data files').toBe(false);
    } finally {
      await warden?.stop();
      await receiver.close();
    }
    // Four processes start one after the other (a refused server, apply, api-key create, the server).
  }, 120_000);
});
