import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkpointIndexes, forgedJwks, type Line, newAttacker, TAMPERINGS, type Tampering } from '../support/audit-tampering.js';
import { lastLogPosition, loggedEvents, POST_AND_USER_TYPES, SHOP_ORG, writeConfig } from '../support/config-files.js';
import { startReceiver, type Receiver } from '../support/http-receiver.js';
import { waitFor } from '../support/wait-for.js';
import { consoleLogin, consoleUserCommand, freshDataDir, runCli, runCliBatch, type RunningWarden, startWarden, testEnv } from '../support/warden-process.js';

/**
 * The export and its verification (docs/audit.md): a real server with two organizations in one log (so
 * that positions differ from sequence numbers), an export of one of them, and every tampering of
 * the matrix (test/support/audit-tampering.ts, docs/audit.md "Threat model") checked through the
 * CLI: exit code and first message. One test per group of the matrix (Tampering['item']).
 */
const PASSWORD = 'correct horse battery staple';
const MALL_ORG = `
org: { id: mall, name: Mall }${POST_AND_USER_TYPES}`;

describe('audit export: the tamper matrix over a real export', () => {
  const dataDir = freshDataDir();
  let receiver: Receiver;
  let env: NodeJS.ProcessEnv;
  let warden: RunningWarden | undefined;
  const file = (name: string) => join(dataDir, name);
  let exported: Line[];
  /** The same export made with personal data, for the tamperings that need plaintext personal fields. */
  let exportedWithPersonal: Line[];
  let exportText: string;
  let consoleExport: string;
  let jwksFile: string;
  const attacker = newAttacker();

  const write = (name: string, lines: readonly Line[]) => writeFileSync(file(name), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  const verify = (name: string, ...extra: string[]) => runCli(['audit', 'verify', file(name), ...extra], env);
  const parse = (text: string) =>
    text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Line);
  const exportShop = async (name: string, ...extra: string[]) => {
    const r = await runCli(['audit', 'export', '--org', 'shop', '--out', file(name), ...extra], env);
    expect(r.code, r.stderr).toBe(0);
    return readFileSync(file(name), 'utf8');
  };
  /**
   * Each tampering of an item through the CLI: exit 1 and its first message. The verifications
   * are independent processes over files of their own (offline: no store), so they run side by side.
   */
  const runMatrix = async (item: Tampering['item']) => {
    const rows = TAMPERINGS.filter((t) => t.item === item);
    expect(rows.length).toBeGreaterThan(0);
    const verified = rows.map((tampering, i) => {
      const tampered = tampering.apply(tampering.personalData ? exportedWithPersonal : exported, attacker);
      const name = `tampered-${item}-${i}.ndjson`;
      write(name, tampered.lines);
      let keys = jwksFile;
      if (item === 'jwks') {
        keys = file('forged-jwks.json');
        writeFileSync(keys, JSON.stringify(forgedJwks(exported, attacker)));
      }
      return { tampering, tampered, run: verify(name, '--jwks', keys) };
    });
    for (const { tampering, tampered, run } of verified) {
      const r = await run;
      expect(r.code, `${tampering.name}\n${r.stdout}${r.stderr}`).toBe(1);
      expect(r.stdout.split('\n')[0], tampering.name).toMatch(tampered.first);
      if (tampered.notBlamed !== undefined)
        expect(r.stdout, tampering.name).not.toMatch(new RegExp(`^line ${tampered.notBlamed}: .*does not match its link`, 'm'));
    }
  };

  beforeAll(async () => {
    receiver = await startReceiver((_req, res) => res.writeHead(201).end());
    env = testEnv(dataDir, {
      WARDEN_AUDIT_CHECKPOINT_SECONDS: '1',
      // A token in the query, as an anchor service without other means of authentication takes it.
      WARDEN_AUDIT_ANCHOR_URL: `${receiver.url}/anchors?token=anchor-s3cret`,
      WARDEN_OUTBOUND_ALLOWLIST: '127.0.0.1/32',
    });
    // One CLI process for the set-up (test/support/warden-process.ts, runCliBatch).
    const [, , shopMade, mallMade] = await runCliBatch(env, [
      ['apply', writeConfig(SHOP_ORG)],
      ['apply', writeConfig(MALL_ORG)],
      ['api-key', 'create', '--org', 'shop'],
      ['api-key', 'create', '--org', 'mall'],
      consoleUserCommand('shop', 'admin@shop.example', PASSWORD, ['ADMIN']),
      consoleUserCommand('shop', 'analyst@shop.example', PASSWORD, ['ANALYST']),
    ]);
    const keys = { shop: shopMade!.at(-1)!, mall: mallMade!.at(-1)! };
    const running = (warden = await startWarden(env));
    // Three rounds, both organizations interleaved, each followed by a checkpoint of shop past it.
    for (let round = 0; round < 3; round++) {
      const submitted = await Promise.all(
        (['shop', 'mall', 'shop', 'mall'] as const).map((org, i) =>
          fetch(`${running.url}/api/v1/items/async`, {
            method: 'POST',
            headers: { 'x-api-key': keys[org], 'content-type': 'application/json' },
            body: JSON.stringify({ items: [0, 1, 2].map((k) => ({ id: `p-${round}-${i}-${k}`, typeId: 'post', data: { text: `post ${round} ${i} ${k}` } })) }),
          }),
        ),
      );
      expect(submitted.map((r) => r.status)).toEqual([202, 202, 202, 202]);
      const head = await waitFor(() => {
        const items = loggedEvents(dataDir, 'ItemSubmitted').filter((e) => e.metadata['orgId'] === 'shop');
        // Shop's own last event, not the log's: a checkpoint of shop signs shop's chain head, which
        // never reaches a later event of mall's when shop has nothing more to record.
        return items.length >= 6 * (round + 1) ? lastLogPosition(dataDir, 'shop') : undefined;
      }, `round ${round} in the log`);
      await waitFor(
        () => loggedEvents(dataDir, 'AuditChainCheckpointed').some((e) => e.metadata['orgId'] === 'shop' && Number(e.data['position']) >= head),
        `a checkpoint of shop past round ${round}`,
      );
    }
    const analyst = await consoleLogin(running.url, 'analyst@shop.example', PASSWORD);
    await consoleLogin(running.url, 'admin@shop.example', PASSWORD);
    consoleExport = await (await fetch(`${running.url}/api/console/v1/audit/export`, { headers: { cookie: analyst.cookie } })).text();
    const jwks = await fetch(`${running.url}/api/v1/signing_keys?include=retired`, { headers: { 'x-api-key': keys.shop } });
    jwksFile = file('jwks.json');
    writeFileSync(jwksFile, await jwks.text());
    await running.stop();
    warden = undefined;
    exportText = await exportShop('export.ndjson');
    exported = parse(exportText);
    exportedWithPersonal = parse(await exportShop('export-with-personal.ndjson', '--include-personal-data'));
  }, 240_000);

  afterAll(async () => {
    await warden?.stop();
    await receiver?.close();
  });

  it('exports shop from a log it shares with mall: positions are not sequence numbers; the untouched export verifies', async () => {
    const events = exported.filter((l) => l['kind'] === 'event');
    expect(events.some((l) => l['position'] !== l['seq'])).toBe(true);
    expect(checkpointIndexes(exported).length).toBeGreaterThanOrEqual(3);
    expect(exported.at(-1)).toMatchObject({ kind: 'head', orgId: 'shop', events: events.length });
    const r = await verify('export.ndjson', '--jwks', jwksFile);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^OK: \d+ event\(s\) \(events 1–\d+, shop's whole history\), [3-9]\d* checkpoint\(s\)/m);
  });

  it('links: a changed or repeated line, each checkpoint, a checkpoint signature', async () => {
    await runMatrix('links');
  }, 120_000);

  it('copies: every field an export line shows is covered (actor, occurredAt, position, a decoded data member, a member inside stored)', async () => {
    await runMatrix('copies');
  }, 120_000);

  it("prefix: a whole export's dropped prefix is checked against the organization's genesis", async () => {
    await runMatrix('prefix');
  }, 120_000);

  it('tail: a cut export (tail, last checkpoint, after line N, header only) fails against the signed head; a range export verifies', async () => {
    await runMatrix('tail');
    const from = exported.find((l) => l['kind'] === 'event' && l['seq'] === 10)!['occurredAt'] as string;
    const range = parse(await exportShop('range.ndjson', '--from', from));
    expect(range[0]!['previous'].seq).toBeGreaterThan(0);
    const r = await verify('range.ndjson', '--jwks', jwksFile);
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toMatch(/^covered: the chain from the header's previous link to the last event, the head signed by key/m);
  }, 120_000);

  it('signatures: signatures are checked by default; without a trusted key set verify refuses; --no-signatures never exits 0', async () => {
    await runMatrix('signatures');
    const none = await verify('export.ndjson');
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/verify checks signatures with a key set you trust: --jwks <file\|url>.*The export's header names key\(s\) /);
    const skipped = await verify('export.ndjson', '--no-signatures');
    expect(skipped.code).toBe(3);
    expect(skipped.stdout).toMatch(/^NOT VERIFIED: signatures were not checked \(--no-signatures\)/m);
    expect(skipped.stdout).toMatch(/^UNVERIFIED: /m);
  }, 120_000);

  it('jwks: a key whose kid is not its RFC 7638 thumbprint is refused', async () => {
    await runMatrix('jwks');
  }, 120_000);

  it('credentials: no credential or credential hash in an export (CLI, with personal data, console), and it still verifies', async () => {
    const db = new Database(file('warden.db'), { readonly: true });
    const secrets: string[] = [];
    try {
      for (const row of db
        .prepare("SELECT type, data FROM events WHERE type IN ('UserCreated', 'UserPasswordSet', 'ConsoleSessionOpened', 'ApiKeyCreated', 'SigningKeyCreated')")
        .all() as Array<{ type: string; data: string }>) {
        const data = JSON.parse(row.data) as Record<string, unknown> & { d?: { ct?: unknown } };
        for (const value of [data['passwordHash'], data['tokenHash'], data['csrfTokenHash'], data['hash'], data['d']?.ct])
          if (typeof value === 'string') secrets.push(value);
      }
    } finally {
      db.close();
    }
    expect(secrets.length).toBeGreaterThanOrEqual(6);
    const personal = await exportShop('with-personal.ndjson', '--include-personal-data');
    for (const [name, text] of [
      ['export', exportText],
      ['with personal data', personal],
      ['console', consoleExport],
    ] as const) {
      for (const secret of secrets) expect(text.includes(secret), `${name} holds ${secret.slice(0, 12)}…`).toBe(false);
      expect(text, name).toContain('"passwordHash":{"$sha256":');
    }
    writeFileSync(file('console.ndjson'), consoleExport);
    for (const name of ['with-personal.ndjson', 'console.ndjson']) {
      const r = await verify(name, '--jwks', jwksFile);
      expect(r.code, r.stdout).toBe(0);
    }
    await runMatrix('credentials');
  }, 120_000);

  it("what no link covers, the plaintext personal fields and the header's jwks, fails against the head's digest of the lines", async () => {
    expect(exportedWithPersonal.some((l) => l['personal'] !== undefined)).toBe(true);
    await runMatrix('lines');
  }, 120_000);

  it('sequence: a removed, swapped, relinked line or a corrupted kind is reported for what it is, where it is', async () => {
    await runMatrix('sequence');
  }, 120_000);

  it('a range after the last event is a head-only export that verifies', async () => {
    const after = parse(await exportShop('after.ndjson', '--from', '2999-01-01T00:00:00Z'));
    expect(after.map((l) => l['kind'])).toEqual(['header', 'head']);
    expect(after[1]).toMatchObject({ events: 0, last: null, chainHead: { seq: exported.at(-1)!['events'] } });
    const r = await verify('after.ndjson', '--jwks', jwksFile);
    expect(r.code, r.stdout).toBe(0);
  });

  it('anchors: to a file and posted through the outbound guard; verify --anchor passes the same history and fails an older one', async () => {
    const toFile = await runCli(['audit', 'anchor', '--org', 'shop', '--out', file('anchor.json')], env);
    expect(toFile.code, toFile.stderr).toBe(0);
    expect(toFile.stdout).toMatch(/^Wrote the head of shop's chain \(event \d+, signed .* by key \S+\) to /);
    const posted = await runCli(['audit', 'anchor', '--org', 'shop', '--post'], env);
    expect(posted.code, posted.stdout + posted.stderr).toBe(0);
    expect(receiver.requests.at(-1)).toMatchObject({ method: 'POST', url: '/anchors?token=anchor-s3cret' });
    // What it prints goes to a cron job's log: the URL without its query.
    expect(posted.stdout).toMatch(/^Posted .* to http:\/\/127\.0\.0\.1:\d+\/anchors\?… \(201\)$/m);
    expect(posted.stdout + posted.stderr).not.toContain('anchor-s3cret');
    expect(JSON.parse(receiver.requests.at(-1)!.body)).toMatchObject({ kind: 'head', orgId: 'shop', format: 'warden-audit-head/v1' });
    const same = await verify('export.ndjson', '--jwks', jwksFile, '--anchor', file('anchor.json'));
    expect(same.code, same.stdout).toBe(0);
    expect(same.stdout).toMatch(/^covered: .*agrees with the anchor signed /m);
    // An export made before the anchor's last event: the anchored event is not in it.
    const anchor = JSON.parse(readFileSync(file('anchor.json'), 'utf8')) as Line;
    const earlier = exported.find((l) => l['kind'] === 'event' && l['seq'] === anchor['last'].seq - 3)!['occurredAt'] as string;
    await exportShop('older.ndjson', '--to', new Date(Date.parse(earlier) - 1).toISOString());
    const older = await verify('older.ndjson', '--jwks', jwksFile, '--anchor', file('anchor.json'));
    expect(older.code, older.stdout).toBe(1);
    expect(older.stdout).toMatch(
      /^anchor: the anchor \(signed .*\) names event \d+, but this export ends at event \d+: the export is older than the anchor, or was cut/m,
    );
  }, 120_000);
});
