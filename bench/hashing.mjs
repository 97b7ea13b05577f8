// PDQ hashing and matching: ms per image over the reference images (decode + hash, hash only),
// and the PdqIndex on 1,000,000 random hashes at radius 31 (queries/s on one core, bytes per hash,
// recall against brute force) and the nearest hash at radius 256. Run after `npm run build`; `node --expose-gc bench/hashing.mjs`
// makes the memory figure steadier. Images come from test/fixtures/pdq.
import { randomBytes } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PdqIndex } from '../dist/libs/hashing/src/domain/hash-index.js';
import { pdqFromLuminance, popcount32 } from '../dist/libs/hashing/src/domain/pdq.js';
import { decodeLuminance, hashImage } from '../dist/libs/hashing/src/image-hashes.js';

const HASHES = Number(process.argv[2] ?? 1_000_000);
const RADIUS = 31;
const TESTDATA = fileURLToPath(new URL('../test/fixtures/pdq/data/', import.meta.url));

const table = (head, rows) => [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
const fmt = (x, digits = 2) => x.toLocaleString('en', { maximumFractionDigits: digits, minimumFractionDigits: digits });

async function timePerItem(items, fn, minMs = 1500) {
  for (const item of items) await fn(item);
  let n = 0;
  const started = performance.now();
  while (performance.now() - started < minMs) {
    for (const item of items) await fn(item);
    n += items.length;
  }
  return (performance.now() - started) / n;
}

async function imageBench() {
  const groups = [
    ['labelme-subset (256x256)', 'reg-test-input/labelme-subset'],
    ['bridge-mods (mostly 1600x1004)', 'bridge-mods'],
  ];
  const rows = [];
  for (const [label, dir] of groups) {
    const files = readdirSync(TESTDATA + dir).filter((f) => f.endsWith('.jpg'));
    const bytes = files.map((f) => readFileSync(`${TESTDATA}${dir}/${f}`));
    const decoded = await Promise.all(bytes.map((b) => decodeLuminance(b)));
    const full = await timePerItem(bytes, (b) => hashImage(b));
    const decodeOnly = await timePerItem(bytes, (b) => decodeLuminance(b));
    const hashOnly = await timePerItem(decoded, (d) => pdqFromLuminance(d.luma, d.lumaWidth, d.lumaHeight));
    const largest = Math.max(...decoded.map((d) => d.lumaWidth * d.lumaHeight));
    rows.push([label, files.length, fmt(full), fmt(decodeOnly), fmt(hashOnly), `${Math.sqrt(largest)}²`]);
  }
  // Full-resolution hash-only cost, for callers that hash without the 512 px pre-resize.
  const big = new Float32Array(1600 * 1004).map((_, i) => (i * 2654435761) >>> 24);
  const fullRes = await timePerItem([big], (l) => pdqFromLuminance(l, 1600, 1004));
  rows.push(['1600x1004 luminance, no pre-resize', 1, '', '', fmt(fullRes), '1600x1004']);
  console.log('PDQ per image (one core, ms per image)\n');
  console.log(table(['images', 'n', 'decode + hash (hashImage)', 'decode only', 'PDQ only', 'hashed plane'], rows));
  console.log();
}

/** Heap plus ArrayBuffer bytes, after letting earlier garbage (and its external memory) go. */
async function memory() {
  for (let i = 0; i < 3; i++) {
    globalThis.gc?.();
    await new Promise((resolve) => setImmediate(resolve));
  }
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

function flip(bytes, offset, count) {
  const q = Uint8Array.from(bytes.subarray(offset, offset + 32));
  const bits = new Set();
  while (bits.size < count) bits.add(Math.floor(Math.random() * 256));
  for (const b of bits) q[b >> 3] ^= 1 << (b & 7);
  return q;
}

async function indexBench() {
  const bank = randomBytes(HASHES * 32);
  const before = await memory();
  const index = new PdqIndex();
  let started = performance.now();
  for (let i = 0; i < HASHES; i++) index.add(bank.subarray(i * 32, i * 32 + 32), i);
  const addMs = performance.now() - started;
  started = performance.now();
  index.build();
  const buildMs = performance.now() - started;
  const measured = ((await memory()) - before) / HASHES;

  // Queries: half random (almost never a match), half near-duplicates planted at 0..31 bits.
  const QUERIES = 20_000;
  const queries = [];
  const planted = [];
  for (let i = 0; i < QUERIES; i++) {
    if (i % 2) queries.push(randomBytes(32));
    else {
      const ref = Math.floor(Math.random() * HASHES);
      const distance = Math.floor(Math.random() * (RADIUS + 1));
      queries.push(flip(bank, ref * 32, distance));
      planted.push({ query: queries[i], ref, distance });
    }
  }
  for (let i = 0; i < 1000; i++) index.search(queries[i], RADIUS);
  started = performance.now();
  let found = 0;
  for (const q of queries) found += index.search(q, RADIUS).length;
  const queryMs = (performance.now() - started) / QUERIES;

  started = performance.now();
  const SCANS = 50;
  for (let i = 0; i < SCANS; i++) index.search(queries[i], RADIUS + 1);
  const scanMs = (performance.now() - started) / SCANS;

  // IMAGE_HASH_DISTANCE asks for the nearest hash at radius 256, where every hash is a match:
  // nearest() keeps one; search() at that radius returns (and sorts) the whole bank.
  started = performance.now();
  for (let i = 0; i < SCANS; i++) index.nearest(queries[2 * i + 1], 256);
  const nearestMs = (performance.now() - started) / SCANS;
  started = performance.now();
  const WHOLE = 3;
  for (let i = 0; i < WHOLE; i++) index.search(queries[2 * i + 1], 256);
  const wholeMs = (performance.now() - started) / WHOLE;

  // Recall against brute force on a sample of planted queries.
  const words = new Uint32Array(bank.buffer, bank.byteOffset, HASHES * 8);
  const SAMPLE = 200;
  let expected = 0;
  let recalled = 0;
  let falsePositives = 0;
  let plantedFound = 0;
  for (const { query, ref, distance } of planted.slice(0, SAMPLE)) {
    const qw = new Uint32Array(query.buffer, query.byteOffset, 8);
    const brute = [];
    for (let i = 0; i < HASHES; i++) {
      let d = 0;
      for (let w = 0; w < 8; w++) d += popcount32(words[i * 8 + w] ^ qw[w]);
      if (d <= RADIUS) brute.push(`${i}:${d}`);
    }
    const got = new Set(index.search(query, RADIUS).map((m) => `${m.ref}:${m.distance}`));
    expected += brute.length;
    recalled += brute.filter((x) => got.has(x)).length;
    falsePositives += got.size - brute.filter((x) => got.has(x)).length;
    if (got.has(`${ref}:${distance}`)) plantedFound++;
  }

  console.log(`PdqIndex, ${HASHES.toLocaleString('en')} random hashes, radius ${RADIUS}, one core\n`);
  console.log(
    table(
      ['measure', 'value'],
      [
        ['add (all hashes)', `${fmt(addMs, 0)} ms`],
        ['build (CSR tables)', `${fmt(buildMs, 0)} ms`],
        ['bytes per hash, index estimate', fmt(index.bytesPerHash, 1)],
        ['bytes per hash, process.memoryUsage delta', fmt(measured, 1) + (globalThis.gc ? '' : ' (no --expose-gc)')],
        ['query, radius 31 (µs)', fmt(queryMs * 1000, 1)],
        ['queries/s, radius 31', fmt(1000 / queryMs, 0)],
        ['matches returned (planted + chance)', `${found} for ${QUERIES} queries`],
        ['query, radius 32 = linear scan (ms)', fmt(scanMs, 1)],
        ['nearest(), radius 256, random query (ms)', fmt(nearestMs, 1)],
        ['search(), radius 256 = every hash, sorted (ms)', fmt(wholeMs, 0)],
        [`recall vs brute force (${SAMPLE} planted queries)`, `${fmt((100 * recalled) / expected, 1)} % (${recalled}/${expected})`],
        ['false positives in that sample', String(falsePositives)],
        ['planted near-duplicate found', `${plantedFound}/${SAMPLE}`],
      ],
    ),
  );
}

await imageBench();
await indexBench();
