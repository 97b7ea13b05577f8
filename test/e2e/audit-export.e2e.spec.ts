import { spawnSync } from 'node:child_process';
import { type AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lastLogPosition, loggedEvents, SHOP_ORG, writeConfig } from '../support/config-files.js';
import { waitFor } from '../support/wait-for.js';
import {
  consoleLogin,
  consoleUserCommand,
  freshDataDir,
  retireRotatedKey,
  runCli,
  runCliBatch,
  type RunningWarden,
  startWarden,
  testEnv,
} from '../support/warden-process.js';

const SECRET_NAME = 'Audit Person 5e1d';
const TEXTS = ['first audited post', 'second audited post', 'third audited post'];
const PASSWORD = 'correct horse battery staple';

interface ExportLine {
  kind: string;
  seq: number;
  position: number;
  type: string;
  stream: string;
  personal?: Record<string, unknown>;
  stored: { data: Record<string, unknown>; metadata: Record<string, unknown> };
  link: string;
}

describe('audit export and offline verify (the chain, signed checkpoints, tampering)', () => {
  const dataDir = freshDataDir();
  const env = testEnv(dataDir, { WARDEN_AUDIT_CHECKPOINT_SECONDS: '1' });
  let warden: RunningWarden | undefined;
  let jwksFile: string;
  let exported: string;
  const file = (name: string) => join(dataDir, name);

  const exportTo = async (name: string, ...extra: string[]) => {
    const r = await runCli(['audit', 'export', '--org', 'shop', '--out', file(name), ...extra], env);
    expect(r.code, r.stderr).toBe(0);
    return readFileSync(file(name), 'utf8');
  };
  const verifyFile = async (name: string, ...extra: string[]) => runCli(['audit', 'verify', file(name), ...extra], env);
  const lines = (text: string) => text.trimEnd().split('\n');
  const parsed = (text: string) => lines(text).map((l) => JSON.parse(l) as ExportLine);
  /** The 1-based line of the submission of an item (its data sealed: found by its stream). */
  const lineOf = (text: string, itemId: string) =>
    parsed(text).findIndex((l) => l.kind === 'event' && l.type === 'ItemSubmitted' && l.stream.endsWith(`:${itemId}`)) + 1;
  /** One byte of the sealed ciphertext, changed. */
  const flipCiphertext = (json: string) => json.replace(/"ct":"(.)/, (_, c: string) => `"ct":"${c === 'A' ? 'B' : 'A'}`);

  /** GET /api/console/v1/audit/export as a signed-in user, before the server stops. */
  const consoleExports: Record<string, { status: number; type: string | null; body: string }> = {};

  beforeAll(async () => {
    // One CLI process for the set-up (test/support/warden-process.ts, runCliBatch).
    const [, keyMade] = await runCliBatch(env, [
      ['apply', writeConfig(SHOP_ORG)],
      ['api-key', 'create', '--org', 'shop'],
      consoleUserCommand('shop', 'analyst@shop.example', PASSWORD, ['ANALYST']),
      consoleUserCommand('shop', 'moderator@shop.example', PASSWORD, ['MODERATOR']),
    ]);
    const key = keyMade!.at(-1)!;
    const running = (warden = await startWarden(env));
    const items = [
      { id: 'u1', typeId: 'user', data: { name: SECRET_NAME } },
      ...TEXTS.map((text, i) => ({ id: `p${i}`, typeId: 'post', data: { text, author: { id: 'u1', typeId: 'user' } } })),
    ];
    const res = await fetch(`${running.url}/api/v1/items/async`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ items }),
    });
    expect(res.status, await res.clone().text()).toBe(202);
    const jwks = await fetch(`${running.url}/api/v1/signing_keys`, { headers: { 'x-api-key': key } });
    jwksFile = file('jwks.json');
    writeFileSync(jwksFile, await jwks.text());
    // Every item submitted, then a checkpoint signed over a head past them.
    const lastSubmitted = await waitFor(
      () => (loggedEvents(dataDir, 'ItemSubmitted').length === 4 ? lastLogPosition(dataDir) : undefined),
      'the items in the log',
    );
    await waitFor(
      () => loggedEvents(dataDir, 'AuditChainCheckpointed').some((e) => Number(e.data['position']) >= lastSubmitted),
      'a checkpoint covering the items',
    );
    for (const who of ['analyst', 'moderator']) {
      const session = await consoleLogin(running.url, `${who}@shop.example`, PASSWORD);
      const r = await fetch(`${running.url}/api/console/v1/audit/export`, { headers: { cookie: session.cookie } });
      consoleExports[who] = { status: r.status, type: r.headers.get('content-type'), body: await r.text() };
    }
    const analyst = await consoleLogin(running.url, 'analyst@shop.example', PASSWORD);
    const bad = await fetch(`${running.url}/api/console/v1/audit/export?from=yesterday`, { headers: { cookie: analyst.cookie } });
    consoleExports['bad'] = { status: bad.status, type: bad.headers.get('content-type'), body: await bad.text() };
    await running.stop();
    warden = undefined;
    exported = await exportTo('export.ndjson');
  }, 60_000);

  afterAll(async () => {
    await warden?.stop();
  });

  it('exports every event of the organization once, in chain order, with personal fields redacted', () => {
    const [header, ...rest] = parsed(exported);
    const events = rest.slice(0, -1);
    expect(header).toMatchObject({ kind: 'header', format: 'warden-audit-export/v3', orgId: 'shop', personalData: false });
    expect(rest.at(-1)).toMatchObject({ kind: 'head', orgId: 'shop', events: events.length, last: { seq: events.length } });
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events.map((e) => e.position)).toEqual([...events.map((e) => e.position)].sort((a, b) => a - b));
    expect(events.filter((e) => e.type === 'ItemSubmitted')).toHaveLength(4);
    expect(events.some((e) => e.type === 'AuditChainCheckpointed')).toBe(true);
    expect(exported).not.toContain(SECRET_NAME);
    const user = events.find((e) => e.type === 'ItemSubmitted' && e.stream.includes('u1'))!;
    // Only what the chain covers: the sealed form, no decoded copy.
    expect(user).not.toHaveProperty('data');
    expect(user).not.toHaveProperty('personal');
    expect(user.stored.data['__personal']).toMatchObject({ fields: ['data'] });
  });

  it('includes personal fields only when the operator asks for them', async () => {
    const withPersonal = await exportTo('with-personal.ndjson', '--include-personal-data');
    const user = parsed(withPersonal).find((e) => e.type === 'ItemSubmitted' && e.stream.includes('u1'))!;
    expect(user.personal).toEqual({ data: { name: SECRET_NAME } });
    // It verifies, and says that the head's digest covers the plaintext as Warden wrote it, not that it matches the ciphertext.
    const r = await verifyFile('with-personal.ndjson', '--jwks', jwksFile);
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toMatch(
      /^covered: .*every line before the head byte for byte as Warden wrote it at export \(the head signs their digest\), the plaintext personal fields \("personal"\) of \d+ event\(s\) included/m,
    );
    expect(r.stdout).toMatch(/^not covered: .*whether the plaintext personal fields match their sealed ciphertext \(only the data key could show it\)/m);
    // Changed in the file, the plaintext fails verify (the chain alone never saw it).
    const changed = withPersonal.replace(SECRET_NAME, 'Someone Else');
    expect(changed).not.toBe(withPersonal);
    writeFileSync(file('personal-changed.ndjson'), changed);
    const refused = await verifyFile('personal-changed.ndjson', '--jwks', jwksFile);
    expect(refused.code, refused.stdout).toBe(1);
    expect(refused.stdout.split('\n')[0]).toMatch(
      new RegExp(`^line ${lines(withPersonal).length}: the lines before the head are not the ones the head signed: .*a plaintext personal field`),
    );
    // So does a carriage return before each newline (a file saved with CRLF line ends): every byte before the head counts.
    writeFileSync(file('crlf.ndjson'), withPersonal.replaceAll('\n', '\r\n'));
    const crlf = await verifyFile('crlf.ndjson', '--jwks', jwksFile);
    expect(crlf.code, crlf.stdout).toBe(1);
    expect(crlf.stdout.split('\n')[0]).toMatch(/^line 1: the header is not what the exporter writes for its values: .*\\u000d/);
  });

  it('verifies offline: chain, checkpoints and their signatures with the JWKS', async () => {
    const r = await verifyFile('export.ndjson', '--jwks', jwksFile);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^OK: \d+ event\(s\) \(events 1–\d+, shop's whole history\), [1-9]\d* checkpoint\(s\), [1-9]\d* signature\(s\) verified/m);
    expect(r.stdout).toMatch(/^covered: the chain from shop's genesis to the last event, the head signed by key \S+ at /m);
  });

  it('names the line when one byte of it changed', async () => {
    const at = lineOf(exported, 'p1');
    const tampered = lines(exported);
    tampered[at - 1] = flipCiphertext(tampered[at - 1]!);
    expect(tampered[at - 1]).not.toBe(lines(exported)[at - 1]);
    writeFileSync(file('byte.ndjson'), tampered.join('\n') + '\n');
    const r = await verifyFile('byte.ndjson', '--jwks', jwksFile);
    expect(r.code).toBe(1);
    expect(r.stdout.split('\n')[0]).toMatch(new RegExp(`^line ${at}: event \\d+ \\(ItemSubmitted .*does not match its link`));
  });

  it('names the line after a removed line', async () => {
    const at = lineOf(exported, 'p1');
    const tampered = lines(exported).filter((_, i) => i !== at - 1);
    writeFileSync(file('removed.ndjson'), tampered.join('\n') + '\n');
    const r = await verifyFile('removed.ndjson', '--jwks', jwksFile);
    expect(r.code).toBe(1);
    expect(r.stdout.split('\n')[0]).toMatch(new RegExp(`^line ${at}: event \\d+ is missing after line ${at - 1}: removed`));
  });

  it('names the line where two swapped lines begin', async () => {
    const at = lineOf(exported, 'p0');
    const tampered = lines(exported);
    [tampered[at - 1], tampered[at]] = [tampered[at]!, tampered[at - 1]!];
    writeFileSync(file('swapped.ndjson'), tampered.join('\n') + '\n');
    const r = await verifyFile('swapped.ndjson', '--jwks', jwksFile);
    expect(r.code).toBe(1);
    expect(r.stdout.split('\n')[0]).toMatch(new RegExp(`^line ${at + 1}: event \\d+ comes after event \\d+ \\(line ${at}\\): lines were moved`));
  });

  it('refuses a line with a duplicate member, whose first value a reader may show while the chain verifies the last', async () => {
    const at = lineOf(exported, 'p1');
    const tampered = lines(exported);
    tampered[at - 1] = tampered[at - 1]!.replace('"actor":', '"actor":"user:someone-else","actor":');
    writeFileSync(file('duplicate.ndjson'), tampered.join('\n') + '\n');
    const r = await verifyFile('duplicate.ndjson', '--jwks', jwksFile);
    expect(r.code, r.stdout).toBe(1);
    expect(r.stdout.split('\n')[0]).toMatch(
      new RegExp(`^line ${at}: event \\d+'s line is not what the exporter writes for its values: at character \\d+ it reads \`"actor":"user:someone-else"`),
    );
  });

  it('refuses a checkpoint whose signature does not verify', async () => {
    const tampered = parsed(exported).map((l) =>
      l.kind === 'event' && l.type === 'AuditChainCheckpointed' ? { ...l, stored: { ...l.stored, data: { ...l.stored.data, signature: 'A'.repeat(86) } } } : l,
    );
    writeFileSync(file('badsig.ndjson'), tampered.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const r = await verifyFile('badsig.ndjson', '--jwks', jwksFile);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/signature does not verify/);
  });

  it('detects an event changed in the SQLite file after it was chained, and names its line', async () => {
    const db = new Database(file('warden.db'));
    try {
      const row = db.prepare("SELECT position, data FROM events WHERE type = 'ItemSubmitted' AND stream LIKE '%:p2'").get() as {
        position: number;
        data: string;
      };
      db.prepare('UPDATE events SET data = ? WHERE position = ?').run(flipCiphertext(row.data), row.position);
    } finally {
      db.close();
    }
    const after = await exportTo('after-update.ndjson');
    const at = lineOf(after, 'p2');
    expect(at).toBeGreaterThan(1);
    const r = await verifyFile('after-update.ndjson', '--jwks', jwksFile);
    expect(r.code).toBe(1);
    expect(r.stdout.split('\n')[0]).toMatch(new RegExp(`^line ${at}: .*does not match its link`));
  });

  it('serves the same export to a console user with VIEW_AUDIT, and verifies it', async () => {
    const analyst = consoleExports['analyst']!;
    expect(analyst.status).toBe(200);
    expect(analyst.type).toMatch(/^application\/x-ndjson/);
    expect(analyst.body).not.toContain(SECRET_NAME);
    writeFileSync(file('console.ndjson'), analyst.body);
    const r = await verifyFile('console.ndjson', '--jwks', jwksFile);
    expect(r.code, r.stdout).toBe(0);
    expect(parsed(analyst.body).filter((l) => l.kind === 'event').length).toBeGreaterThan(4);
  });

  it('refuses the console export without VIEW_AUDIT, and a bad window with a pointer', async () => {
    expect(consoleExports['moderator']!.status).toBe(403);
    const bad = consoleExports['bad']!;
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body)).toMatchObject({ errors: [{ status: 400, pointer: '/from' }] });
  });

  it("passes and fails with the auditor's own verifier printed in docs/audit.md", () => {
    const doc = readFileSync(join(import.meta.dirname, '../../docs/audit.md'), 'utf8');
    const block = /<!-- audit-verifier:begin -->\n```js\n([\s\S]*?)```\n<!-- audit-verifier:end -->/.exec(doc)?.[1];
    expect(block).toBeDefined();
    expect(block!.trimEnd().split('\n').length).toBeLessThanOrEqual(80);
    writeFileSync(file('verify-export.mjs'), block!);
    const run = (name: string) => spawnSync(process.execPath, [file('verify-export.mjs'), file(name), jwksFile], { encoding: 'utf8' });
    for (const name of ['export.ndjson', 'with-personal.ndjson']) {
      const clean = run(name);
      expect(clean.status, clean.stderr).toBe(0);
      expect(clean.stdout).toMatch(/^OK: \d+ events/);
    }
    // The plaintext personal fields, which no link covers: the head's digest of the lines does.
    expect(run('personal-changed.ndjson').stderr).toContain('Error: head: the lines before the head are not the ones the head signed');
    for (const tampered of ['byte.ndjson', 'removed.ndjson', 'swapped.ndjson', 'badsig.ndjson', 'after-update.ndjson', 'duplicate.ndjson']) {
      const r = run(tampered);
      expect(r.status, tampered).not.toBe(0);
      expect(r.stderr, tampered).toMatch(/Error: line \d+: /);
    }
    // A changed event is caught by its own link, on its own line, not only later by a checkpoint or the head.
    expect(run('byte.ndjson').stderr).toContain(`Error: line ${lineOf(exported, 'p1')}: the event does not match its link`);
    // So is a change to what a line shows in plaintext (issue 31 item 1): the actor, in the copy and in the chained metadata alike.
    const at = lineOf(exported, 'p0');
    const relabelled = parsed(exported);
    const line = relabelled[at - 1]!;
    relabelled[at - 1] = {
      ...line,
      actor: 'user:someone-else',
      stored: { ...line.stored, metadata: { ...line.stored.metadata, actor: 'user:someone-else' } },
    } as ExportLine & { actor: string };
    writeFileSync(file('actor.ndjson'), relabelled.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const actor = run('actor.ndjson');
    expect(actor.status).not.toBe(0);
    expect(actor.stderr).toContain(`Error: line ${at}: the event does not match its link`);
    // And a member beside the chained data and metadata inside `stored`, which no link covers.
    const besides = parsed(exported);
    besides[at - 1] = { ...line, stored: { ...line.stored, decision: { action: 'IGNORE' } } } as ExportLine;
    writeFileSync(file('stored-member.ndjson'), besides.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const member = run('stored-member.ndjson');
    expect(member.status).not.toBe(0);
    expect(member.stderr).toContain(`Error: line ${at}: stored holds more than the chained data and metadata`);
  });
});

describe('the audit chain with two processes appending to one log', () => {
  const dataDir = freshDataDir();
  const env = testEnv(dataDir, { WARDEN_AUDIT_CHECKPOINT_SECONDS: '1' });
  const servers: RunningWarden[] = [];
  let jwksServer: Server | undefined;

  afterAll(async () => {
    for (const s of servers) await s.stop();
    jwksServer?.close();
  });

  it('chains every event once, in log order, whichever process appended it; verifies with a JWKS fetched from a URL', async () => {
    // One CLI process for the set-up (test/support/warden-process.ts, runCliBatch).
    const [, keyMade] = await runCliBatch(env, [
      ['apply', writeConfig(SHOP_ORG)],
      ['api-key', 'create', '--org', 'shop'],
    ]);
    const key = keyMade!.at(-1)!;
    servers.push(await startWarden(env), await startWarden(env));
    const submit = (server: RunningWarden, i: number) =>
      fetch(`${server.url}/api/v1/items/async`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ items: [{ id: `p-${i}`, typeId: 'post', data: { text: `post ${i}` } }] }),
      });
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => submit(servers[i % 2]!, i)));
    expect(answers.map((r) => r.status)).toEqual(Array(40).fill(202));
    const jwks = await (await fetch(`${servers[0]!.url}/api/v1/signing_keys`, { headers: { 'x-api-key': key } })).text();
    const head = await waitFor(() => {
      const submitted = loggedEvents(dataDir, 'ItemSubmitted');
      if (submitted.length < 40) return undefined;
      const db = new Database(join(dataDir, 'warden.db'), { readonly: true });
      try {
        return (db.prepare("SELECT max(position) AS p FROM events WHERE type = 'ItemSubmitted'").get() as { p: number }).p;
      } finally {
        db.close();
      }
    }, 'the 40 items in the log');
    await waitFor(() => loggedEvents(dataDir, 'AuditChainCheckpointed').some((e) => Number(e.data['position']) >= head), 'a checkpoint past them');
    for (const s of servers.splice(0)) await s.stop();

    const file = join(dataDir, 'two-processes.ndjson');
    expect((await runCli(['audit', 'export', '--org', 'shop', '--out', file], env)).code).toBe(0);
    const lines = readFileSync(file, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as ExportLine);
    expect(lines.filter((l) => l.type === 'ItemSubmitted')).toHaveLength(40);
    // Like Warden's own key set asked without an API key: /locked answers 401.
    jwksServer = createServer((req, res) =>
      req.url === '/locked' ? res.writeHead(401).end() : res.writeHead(200, { 'content-type': 'application/json' }).end(jwks),
    );
    await new Promise<void>((r) => jwksServer!.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/jwks.json`;
    const verified = await runCli(['audit', 'verify', file, '--jwks', url], env);
    expect(verified.code, verified.stdout + verified.stderr).toBe(0);
    expect(verified.stdout).toMatch(/^OK: .* [1-9]\d* signature\(s\) verified/m);
    const locked = await runCli(['audit', 'verify', file, '--jwks', url.replace('/jwks.json', '/locked')], env);
    expect(locked.code).toBe(2);
    expect(locked.stderr).toContain("answered 401; for Warden's own key set, save it first");
  }, 90_000);
});

describe('audit checkpoints signed by a key retired since', () => {
  const dataDir = freshDataDir();
  const env = testEnv(dataDir, { WARDEN_AUDIT_CHECKPOINT_SECONDS: '1' });
  let warden: RunningWarden | undefined;

  afterAll(async () => {
    await warden?.stop();
  });

  it('verifies with the JWKS that includes retired keys, and names the checkpoint line without them', async () => {
    // One CLI process for the set-up (test/support/warden-process.ts, runCliBatch).
    const [, keyMade] = await runCliBatch(env, [
      ['apply', writeConfig(SHOP_ORG)],
      ['api-key', 'create', '--org', 'shop'],
    ]);
    const key = keyMade!.at(-1)!;
    warden = await startWarden(env);
    const running = warden;
    const jwks = async (query = '') => {
      const r = await fetch(`${running.url}/api/v1/signing_keys${query}`, { headers: { 'x-api-key': key } });
      return { status: r.status, body: (await r.json()) as { keys: Array<{ kid: string; status: string }>; errors?: Array<{ pointer?: string }> } };
    };
    const positionOf = (itemId: string) => {
      const db = new Database(join(dataDir, 'warden.db'), { readonly: true });
      try {
        const row = db.prepare("SELECT position FROM events WHERE type = 'ItemSubmitted' AND json_extract(data, '$.itemId') = ?").get(itemId) as
          { position: number } | undefined;
        return row?.position;
      } finally {
        db.close();
      }
    };
    /** Submits a post and waits for a checkpoint past it signed with `kid`. */
    const checkpointedPast = async (itemId: string, kid: string) => {
      const r = await fetch(`${running.url}/api/v1/items/async`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ items: [{ id: itemId, typeId: 'post', data: { text: `post ${itemId}` } }] }),
      });
      expect(r.status).toBe(202);
      const at = await waitFor(() => positionOf(itemId), `${itemId} in the log`);
      await waitFor(
        () => loggedEvents(dataDir, 'AuditChainCheckpointed').some((e) => Number(e.data['position']) >= at && e.data['kid'] === kid),
        `a checkpoint past ${itemId} signed by ${kid}`,
      );
    };

    const oldKid = (await jwks()).body.keys[0]!.kid;
    await checkpointedPast('p-before', oldKid);
    expect((await runCli(['signing-key', 'rotate', '--org', 'shop'], env)).code).toBe(0);
    const newKid = (await jwks()).body.keys[0]!.kid;
    expect(newKid).not.toBe(oldKid);
    // Retirable a few seconds after the rotation, from the instant the refusal names.
    const { retired } = await retireRotatedKey(env, 'shop', oldKid);
    expect(retired.code, retired.stderr).toBe(0);
    await checkpointedPast('p-after', newKid);

    const published = await jwks();
    expect(published.body.keys.map((k) => [k.kid, k.status])).toEqual([[newKid, 'active']]);
    const every = await jwks('?include=retired');
    expect(every.body.keys.map((k) => [k.kid, k.status])).toEqual([
      [newKid, 'active'],
      [oldKid, 'retired'],
    ]);
    const bad = await jwks('?include=everything');
    expect(bad.status).toBe(400);
    expect(bad.body.errors?.map((e) => e.pointer)).toEqual(['/include']);
    await running.stop();
    warden = undefined;

    const file = (name: string) => join(dataDir, name);
    writeFileSync(file('published.json'), JSON.stringify(published.body));
    writeFileSync(file('every.json'), JSON.stringify(every.body));
    expect((await runCli(['audit', 'export', '--org', 'shop', '--out', file('rotated.ndjson')], env)).code).toBe(0);
    const lines = readFileSync(file('rotated.ndjson'), 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as ExportLine);
    const oldCheckpointLines = lines.flatMap((l, i) => (l.type === 'AuditChainCheckpointed' && l.stored.data['kid'] === oldKid ? [i + 1] : []));
    expect(oldCheckpointLines.length).toBeGreaterThan(0);

    const withoutRetired = await runCli(['audit', 'verify', file('rotated.ndjson'), '--jwks', file('published.json')], env);
    expect(withoutRetired.code).toBe(1);
    expect(withoutRetired.stdout.split('\n')[0]).toBe(
      `line ${oldCheckpointLines[0]}: the checkpoint on line ${oldCheckpointLines[0]} is signed by key ${oldKid}, which the JWKS does not have (retired since? fetch the JWKS with ?include=retired)`,
    );
    const withRetired = await runCli(['audit', 'verify', file('rotated.ndjson'), '--jwks', file('every.json')], env);
    expect(withRetired.code, withRetired.stdout + withRetired.stderr).toBe(0);
    expect(withRetired.stdout).toMatch(/^OK: .* [1-9]\d* signature\(s\) verified/m);
  }, 60_000);
});
