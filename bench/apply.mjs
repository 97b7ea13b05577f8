// Apply time of large configurations through the real CLI on the embedded profile:
// a hash bank of 1,000,000 hashes (hashesFile) and a configuration with 500 rules.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const HASHES = Number(process.argv[2] ?? 1_000_000);
const RULES = Number(process.argv[3] ?? 500);

function apply(dataDir, file) {
  const started = performance.now();
  const r = spawnSync(process.execPath, ['dist/apps/server/bundle/cli.js', 'apply', file], {
    env: { ...process.env, WARDEN_DATA_DIR: dataDir, WARDEN_LOG_LEVEL: 'warn' },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.status !== 0) throw new Error(r.stderr);
  return { seconds: (performance.now() - started) / 1000, summary: r.stdout.trim().split('\n').pop() };
}

const base = `org: { id: bench, name: Bench }
itemTypes:
  - { id: post, name: Post, kind: CONTENT, fields: [{ name: text, type: STRING }, { name: likes, type: NUMBER }] }
actions:
  - { id: review, name: Review, kind: ENQUEUE_TO_MRT, itemTypeIds: [post] }
textBanks:
  - { id: words, name: Words, terms: [a, b], regexes: ['\\bfree\\s+money\\b'] }
`;

const dir = mkdtempSync(join(tmpdir(), 'warden-bench-apply-'));
const rows = [];
try {
  const hashLines = [];
  for (let i = 0; i < HASHES; i++) hashLines.push(randomBytes(32).toString('hex'));
  writeFileSync(join(dir, 'hashes.txt'), hashLines.join('\n') + '\n');
  const bankFile = join(dir, 'bank.yaml');
  writeFileSync(bankFile, base + `hashBanks:\n  - { id: big, name: Big, hashType: PDQ, hashesFile: hashes.txt }\n`);
  const bankData = join(dir, 'data-bank');
  rows.push([`hash bank of ${HASHES.toLocaleString('en')} hashes, first apply`, apply(bankData, bankFile)]);
  rows.push([`same file again (no change)`, apply(bankData, bankFile)]);
  hashLines.splice(0, 1000);
  writeFileSync(join(dir, 'hashes.txt'), hashLines.join('\n') + '\n');
  rows.push([`1,000 hashes removed from the file`, apply(bankData, bankFile)]);

  const rules = Array.from(
    { length: RULES },
    (_, i) => `  - id: rule-${i}
    name: Rule ${i}
    status: LIVE
    itemTypeIds: [post]
    actionIds: [review]
    conditionSet:
      conjunction: AND
      conditions:
        - { input: { field: text }, signal: { type: TEXT_BANK, args: { bankId: words } }, comparator: EQUALS, value: true }
        - { input: { field: text }, signal: { type: TEXT_MATCHES_REGEX, args: { pattern: 'spam${i}\\\\d+' } }, comparator: EQUALS, value: true }
        - { conjunction: OR, conditions: [{ input: { field: likes }, comparator: LT, value: ${i} }, { input: { field: likes }, comparator: IS_NOT_PROVIDED }] }`,
  ).join('\n');
  const rulesFile = join(dir, 'rules.yaml');
  writeFileSync(rulesFile, base + 'rules:\n' + rules + '\n');
  const rulesData = join(dir, 'data-rules');
  rows.push([`${RULES} rules, first apply`, apply(rulesData, rulesFile)]);
  rows.push([`same file again (no change)`, apply(rulesData, rulesFile)]);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

console.log(`warden apply through the CLI, embedded profile (node ${process.version}); times include process start (~0.6 s)\n`);
console.log('| configuration | seconds | result |');
console.log('|---|---|---|');
for (const [name, r] of rows) console.log(`| ${name} | ${r.seconds.toFixed(2)} | ${r.summary} |`);
