import { readFileSync } from 'node:fs';
import { it } from 'vitest';
import { hashImage } from '/work/main/libs/hashing/src/image-hashes.js';
import { pdqFromHex, hammingDistance, bitCount } from '/work/main/libs/hashing/src/domain/pdq.js';
const root = '/work/shared/testdata/pdq/';
function csv(name: string) {
  const lines = readFileSync(root + 'expected/' + name, 'utf8').split('\n').filter((l) => l && !l.startsWith('#'));
  const head = lines.shift()!.split(',');
  return lines.map((l) => Object.fromEntries(l.split(',').map((v, i) => [head[i], v])));
}
it('explore', async () => {
  const cpp = csv('cpp-current-build.csv'); const py = csv('python-pure-pil.csv');
  const pyMap = new Map(py.map((r) => [r.path, r.hash]));
  const paths = new Set([...cpp.map((r) => r.path), ...py.map((r) => r.path)]);
  for (const p of paths) {
    const h = await hashImage(readFileSync(root + 'data/' + p));
    const c = cpp.find((r) => r.path === p);
    const dc = c ? hammingDistance(pdqFromHex(h.pdq), pdqFromHex(c.hash)) : '-';
    const dp = pyMap.has(p) ? hammingDistance(pdqFromHex(h.pdq), pdqFromHex(pyMap.get(p)!)) : '-';
    console.log(p.padEnd(45), `${h.width}x${h.height}`.padEnd(10), 'q', h.quality, 'cppq', c?.quality, 'dCpp', dc, 'dPy', dp, 'bits', bitCount(pdqFromHex(h.pdq)), c ? bitCount(pdqFromHex(c.hash)) : '');
  }
});
