import { readFileSync } from 'node:fs';
import { it } from 'vitest';
import sharp from 'sharp';
import { lumaOf, pdqFromLuminance, pdqFromHex, hammingDistance } from './domain/pdq.js';
const root = '/work/shared/testdata/pdq/';
function csv(name: string) {
  const lines = readFileSync(root + 'expected/' + name, 'utf8').split('\n').filter((l) => l && !l.startsWith('#'));
  const head = lines.shift()!.split(',');
  return lines.map((l) => Object.fromEntries(l.split(',').map((v, i) => [head[i], v])));
}
async function h(p: string, opts: { icc: boolean; flatten: boolean; squash: boolean }) {
  let s = sharp(readFileSync(root + 'data/' + p), { ignoreIcc: !opts.icc });
  if (opts.flatten) s = s.flatten({ background: '#ffffff' });
  const { data, info } = await s.raw().toBuffer({ resolveWithObject: true });
  const { width: W, height: H, channels: C } = info;
  const big = W > 512 || H > 512;
  const w = big && opts.squash ? 512 : W, hh = big && opts.squash ? 512 : H;
  const l = new Float32Array(w * hh);
  for (let y = 0; y < hh; y++) for (let x = 0; x < w; x++) { const o = (Math.floor(y * H / hh) * W + Math.floor(x * W / w)) * C; l[y * w + x] = lumaOf(data[o], data[o + 1], data[o + 2]); }
  return pdqFromLuminance(l, w, hh).hash;
}
it('explore2', async () => {
  const sets = ['python-pure-pil.csv', 'wasm-imagemagick.csv', 'pytx-pdqhash-examples.csv'];
  for (const set of sets) {
    for (const r of csv(set)) {
      const p = r.path ?? r.path_inferred;
      try { readFileSync(root + 'data/' + p); } catch { continue; }
      const e = pdqFromHex(r.hash);
      const out: string[] = [];
      for (const icc of [false, true]) for (const flatten of [false, true]) for (const squash of [true, false]) {
        out.push(`${icc ? 'I' : 'i'}${flatten ? 'F' : 'f'}${squash ? 'S' : 's'}=${hammingDistance(await h(p, { icc, flatten, squash }), e)}`);
      }
      console.log(set.padEnd(28), p.padEnd(44), out.join(' '));
    }
  }
}, 120_000);
