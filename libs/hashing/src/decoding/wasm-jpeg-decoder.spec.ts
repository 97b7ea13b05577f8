import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { WasmJpegDecoder } from './wasm-jpeg-decoder.js';

/** The PDQ reference images, kept in the repository (test/fixtures/pdq/README.md says where from). */
const TESTDATA = fileURLToPath(new URL('../../../../test/fixtures/pdq/data/', import.meta.url));

/** The R,G,B samples sharp's libvips decodes, with embedded colour profiles ignored as the hasher does. */
async function sharpRgb(bytes: Buffer): Promise<Buffer> {
  return sharp(bytes, { failOn: 'none', ignoreIcc: true }).toColourspace('srgb').removeAlpha().raw().toBuffer();
}

/** How many R,G,B samples differ from sharp's decode of the same file. */
async function samplesDifferingFromSharp(decoder: WasmJpegDecoder, bytes: Buffer, label: string): Promise<number> {
  const rgba = await decoder.decode(bytes);
  expect(rgba, label).toBeDefined();
  const rgb = await sharpRgb(bytes);
  expect(rgba!.data.length / 4, label).toBe(rgb.length / 3);
  let differing = 0;
  for (let i = 0, o = 0; o < rgb.length; i++, o++) {
    if ((i & 3) === 3) i++;
    if (rgba!.data[i] !== rgb[o]) differing++;
  }
  return differing;
}

async function expectSamePixels(decoder: WasmJpegDecoder, bytes: Buffer, label: string): Promise<void> {
  expect(await samplesDifferingFromSharp(decoder, bytes, label), label).toBe(0);
}

describe('WasmJpegDecoder', () => {
  const W = 120;
  const H = 90;
  const pixels = Buffer.from(Array.from({ length: W * H * 3 }, (_, i) => ((i % 3) * 80 + (i >> 4) * 7) & 255));
  const image = () => sharp(pixels, { raw: { width: W, height: H, channels: 3 } });

  it('decodes to the same pixels as sharp: baseline, progressive, 4:4:4 and greyscale files', async () => {
    const decoder = new WasmJpegDecoder();
    const baseline = await image().jpeg({ quality: 80 }).toBuffer();
    const variants: Record<string, Buffer> = {
      baseline,
      progressive: await image().jpeg({ progressive: true }).toBuffer(),
      '4:4:4': await image().jpeg({ chromaSubsampling: '4:4:4', quality: 95 }).toBuffer(),
      greyscale: await image().toColourspace('b-w').jpeg().toBuffer(),
    };
    for (const [label, bytes] of Object.entries(variants)) await expectSamePixels(decoder, bytes, label);
  });

  it('decodes a truncated file as far as the data goes, like sharp but for the rows at the cut', async () => {
    // libvips and plain libjpeg (as the reference hasher uses it) upsample chroma differently at
    // the row where the data ends; everywhere else the pixels agree.
    const decoder = new WasmJpegDecoder();
    const baseline = await image().jpeg({ quality: 80 }).toBuffer();
    for (const fraction of [0.3, 0.6, 0.8]) {
      const truncated = baseline.subarray(0, Math.floor(baseline.length * fraction));
      const differing = await samplesDifferingFromSharp(decoder, truncated, String(fraction));
      expect(differing, String(fraction)).toBeLessThan(W * 3 * 4);
    }
  });

  it('decodes every reference JPEG to the same pixels as sharp', async () => {
    const decoder = new WasmJpegDecoder();
    const files = execFileSync('find', [TESTDATA, '-iname', '*.jpg'], { encoding: 'utf8' }).trim().split('\n');
    expect(files.length).toBeGreaterThan(20);
    for (const file of files) await expectSamePixels(decoder, readFileSync(file), file);
  });

  it('gives undefined for what libjpeg cannot decode, and keeps decoding afterwards', async () => {
    const decoder = new WasmJpegDecoder();
    const good = await image().jpeg().toBuffer();
    const headerOnly = good.subarray(0, 200);
    const cmyk = await image().toColourspace('cmyk').jpeg().toBuffer();
    for (let i = 0; i < 25; i++) {
      expect(await decoder.decode(i % 2 === 0 ? headerOnly : cmyk)).toBeUndefined();
      expect((await decoder.decode(good))?.width).toBe(W);
    }
  });
});
