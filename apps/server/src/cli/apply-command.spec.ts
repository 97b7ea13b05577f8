import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ApplyReport } from '#warden/catalog';
import { formatProblems, formatReport, readConfigFile } from './apply-command.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** A configuration file with one hash bank reading `hashesFile`, in a folder of its own. */
function configWithHashesFile(hashesFile: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'warden-apply-'));
  dirs.push(dir);
  const file = join(dir, 'org.yaml');
  writeFileSync(file, `org: { id: acme, name: Acme }\nhashBanks:\n  - { id: b, name: B, hashType: SHA256, hashesFile: "${hashesFile}" }\n`);
  return file;
}

describe('readConfigFile: the hashes file', () => {
  it('refuses a hashes file that is not a regular file (a device is read until memory runs out, a FIFO until a writer comes)', () => {
    expect(readConfigFile(configWithHashesFile('/dev/null'), {})).toEqual({
      ok: false,
      problems: [{ path: 'hashBanks[0].hashesFile', message: 'cannot read hashes file "/dev/null": not a regular file' }],
    });
  });

  it('refuses a configuration file that is not a regular file, as its hashes files', () => {
    expect(readConfigFile('/dev/zero', {})).toEqual({ ok: false, problems: [{ path: '', message: 'cannot read /dev/zero: not a regular file' }] });
  });

  it('counts every malformed line in the summary, those only counted in the "… and N more" line too', () => {
    const file = configWithHashesFile('bank.txt');
    writeFileSync(join(file, '..', 'bank.txt'), Array.from({ length: 23 }, (_, i) => `bad${i}`).join('\n'));
    const result = readConfigFile(file, {});
    if (result.ok) throw new Error('expected problems');
    const printed = formatProblems('org.yaml', result.problems).split('\n');
    expect(printed[0]).toBe('org.yaml: 23 problem(s); nothing was applied:');
    expect(printed).toHaveLength(1 + 21);
    expect(printed[21]).toBe('  hashBanks[0].hashesFile: … and 3 more malformed lines');
  });

  it('reads a regular hashes file relative to the configuration file', () => {
    const file = configWithHashesFile('bank.txt');
    writeFileSync(join(file, '..', 'bank.txt'), `${'ab'.repeat(32)}\n`);
    const result = readConfigFile(file, {});
    expect(result.ok && result.config.hashBanks[0]?.hashes).toEqual(['ab'.repeat(32)]);
  });
});

describe('readConfigFile: the text', () => {
  const fileWith = (name: string, bytes: Buffer): string => {
    const dir = mkdtempSync(join(tmpdir(), 'warden-apply-'));
    dirs.push(dir);
    writeFileSync(join(dir, name), bytes);
    return join(dir, name);
  };

  it('refuses bytes that are not UTF-8 rather than reading them as U+FFFD', () => {
    const file = fileWith('org.yaml', Buffer.concat([Buffer.from('org: { id: acme, name: "Soci'), Buffer.from([0xe9]), Buffer.from('t\u00e9" }\n')]));
    expect(readConfigFile(file, {})).toEqual({ ok: false, problems: [{ path: '', message: `${file} is not UTF-8 text: save it as UTF-8` }] });
  });

  it.each(['org.yaml', 'org.json'])('takes a leading byte-order mark in %s', (name) => {
    const file = fileWith(name, Buffer.from('\ufeff{"org": {"id": "acme", "name": "Soci\u00e9t\u00e9"}}'));
    const result = readConfigFile(file, {});
    expect(result.ok && result.config.org).toMatchObject({ id: 'acme', name: 'Soci\u00e9t\u00e9' });
  });
});

describe('formatReport: the inbound topic line', () => {
  const report = {
    orgId: 'globex',
    dryRun: false,
    organization: { created: false, renamed: false },
    created: [],
    updated: [],
    archived: [],
    leftAlone: [],
    settingsChanged: ['inboundTopic'],
    inboundTopic: { enabled: true },
    drift: [],
    hashes: [],
    warnings: [],
    eventsAppended: 1,
  } as unknown as ApplyReport;
  const line = (...args: [string | undefined, boolean?]) => formatReport(report, undefined, ...args).split('\n')[0];

  it('names the subject with the prefix set here, even without a broker URL, and says the broker is not configured here', () => {
    expect(line('acme-prod', false)).toBe(
      'changed inbound topic settings: enabled, items taken from acme-prod.globex.items (no broker configured here: WARDEN_NATS_URL is not set)',
    );
    expect(line(undefined, false)).toBe(
      'changed inbound topic settings: enabled, items taken from <WARDEN_NATS_SUBJECT_PREFIX>.globex.items (no broker configured here: WARDEN_NATS_URL is not set)',
    );
    expect(line('warden', true)).toBe('changed inbound topic settings: enabled, items taken from warden.globex.items');
  });
});
