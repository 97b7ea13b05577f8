import { describe, expect, it } from 'vitest';
import { rng } from '../../../../test/support/random.js';
import { bitCount, hammingDistance, isPdqHex, jaroszWindowSize, lumaOf, lumaOfPixels, pdqFromHex, pdqFromLuminance, pdqToHex, popcount32 } from './pdq.js';

/** The 256-bit number with bit 16*i + j set where sign(i, j) is true, as 64 hex digits. */
function expectedHex(sign: (i: number, j: number) => boolean): string {
  let n = 0n;
  for (let i = 0; i < 16; i++) for (let j = 0; j < 16; j++) if (sign(i, j)) n |= 1n << BigInt(16 * i + j);
  return n.toString(16).padStart(64, '0');
}

/**
 * A 64x64 integer luminance made of DCT basis images: the product of the vertical cosine of
 * frequency i + 1 and the horizontal one of frequency j + 1, weighted +1 where sign(i, j) and -1
 * elsewhere, around mid-grey. PDQ's coefficient (i, j) of it is +-0.4 * 32 (D has scale
 * sqrt(2/64), and a cosine of 64 samples has energy 32), far from the rounding noise.
 */
function basisImage(sign: (i: number, j: number) => boolean): Float32Array {
  const cos = (f: number, k: number) => Math.cos((Math.PI * f * (2 * k + 1)) / 128);
  const img = new Float32Array(64 * 64);
  for (let y = 0; y < 64; y++) {
    for (let x = 0; x < 64; x++) {
      let v = 128;
      for (let i = 0; i < 16; i++) {
        for (let j = 0; j < 16; j++) v += (sign(i, j) ? 0.4 : -0.4) * cos(i + 1, y) * cos(j + 1, x);
      }
      img[y * 64 + x] = Math.round(v);
    }
  }
  return img;
}

function popcountBig(hex: string): number {
  let n = BigInt('0x' + hex);
  let c = 0;
  while (n > 0n) {
    c += Number(n & 1n);
    n >>= 1n;
  }
  return c;
}

/**
 * A plain transcription of the reference's pipeline (one running float32 sum per row/column,
 * strided access, full sort for the median), to check the blocked loops of the implementation.
 */
function naivePdq(luma: Float32Array, width: number, height: number): { hex: string; quality: number } {
  const f = Math.fround;
  const box = (src: Float32Array, dst: Float32Array, start: number, stride: number, length: number, window: number) => {
    const half = Math.floor((window + 2) / 2);
    let sum = 0;
    let count = 0;
    let li = start;
    let ri = start;
    let oi = start;
    for (let k = 0; k < half - 1; k++, ri += stride) {
      sum = f(sum + src[ri]!);
      count++;
    }
    for (let k = 0; k < window - half + 1; k++, ri += stride, oi += stride) {
      sum = f(sum + src[ri]!);
      dst[oi] = sum / ++count;
    }
    for (let k = 0; k < length - window; k++, ri += stride, li += stride, oi += stride) {
      sum = f(f(sum + src[ri]!) - src[li]!);
      dst[oi] = sum / count;
    }
    for (let k = 0; k < half - 1; k++, li += stride, oi += stride) {
      sum = f(sum - src[li]!);
      dst[oi] = sum / --count;
    }
  };
  const wr = Math.floor((width + 127) / 128);
  const wc = Math.floor((height + 127) / 128);
  const a = luma.slice();
  const b = new Float32Array(width * height);
  for (let pass = 0; pass < 2; pass++) {
    for (let y = 0; y < height; y++) box(a, b, y * width, 1, width, wr);
    for (let x = 0; x < width; x++) box(b, a, x, width, height, wc);
  }
  const m = new Float32Array(64 * 64);
  for (let i = 0; i < 64; i++) {
    for (let j = 0; j < 64; j++) m[i * 64 + j] = a[Math.floor(((i + 0.5) * height) / 64) * width + Math.floor(((j + 0.5) * width) / 64)]!;
  }
  let gradients = 0;
  for (let i = 0; i < 64; i++) {
    for (let j = 0; j < 64; j++) {
      if (i < 63) gradients += Math.abs(Math.trunc(f(f(f(m[i * 64 + j]! - m[(i + 1) * 64 + j]!) * 100) / 255)));
      if (j < 63) gradients += Math.abs(Math.trunc(f(f(f(m[i * 64 + j]! - m[i * 64 + j + 1]!) * 100) / 255)));
    }
  }
  const d = (i: number, k: number) => f(f(Math.sqrt(2 / 64)) * Math.cos((Math.PI / 2 / 64) * (i + 1) * (2 * k + 1)));
  const t = new Float32Array(16 * 64);
  for (let i = 0; i < 16; i++) {
    for (let j = 0; j < 64; j++) {
      let sum = 0;
      for (let k = 0; k < 64; k++) sum = f(sum + f(d(i, k) * m[k * 64 + j]!));
      t[i * 64 + j] = sum;
    }
  }
  const coefficients = new Float32Array(256);
  for (let i = 0; i < 16; i++) {
    for (let j = 0; j < 16; j++) {
      let sum = 0;
      for (let k = 0; k < 64; k++) sum = f(sum + f(t[i * 64 + k]! * d(j, k)));
      coefficients[i * 16 + j] = sum;
    }
  }
  const median = coefficients.slice().sort()[127]!;
  return { hex: expectedHex((i, j) => coefficients[i * 16 + j]! > median), quality: Math.min(100, Math.trunc(gradients / 90)) };
}

describe('luminance', () => {
  it('computes every one of the 2^24 colours per pixel exactly as lumaOf does, skipping further channels', () => {
    const pixels = 256 * 256;
    const rgba = new Uint8Array(pixels * 4);
    const luma = new Float32Array(pixels);
    let mismatches = 0;
    for (let r = 0; r < 256; r++) {
      for (let i = 0; i < pixels; i++) rgba.set([r, i >> 8, i & 255, 255 - r], i * 4);
      lumaOfPixels(rgba, pixels, 4, luma);
      for (let i = 0; i < pixels; i++) if (luma[i] !== Math.fround(lumaOf(r, i >> 8, i & 255))) mismatches++;
    }
    expect(mismatches).toBe(0);
    expect(luma[pixels - 1]).toBe(Math.fround(lumaOf(255, 255, 255)));
  });
});

describe('PDQ from luminance', () => {
  it('hashes an all-black image to zero bits and quality 0: every coefficient equals the median', () => {
    const { hash, quality } = pdqFromLuminance(new Float32Array(100 * 80), 100, 80);
    expect(pdqToHex(hash)).toBe('0'.repeat(64));
    expect(quality).toBe(0);
  });

  it('gives quality 0 to any flat image', () => {
    expect(pdqFromLuminance(new Float32Array(300 * 200).fill(173), 300, 200).quality).toBe(0);
  });

  it('returns the zero hash for images under 5 px on a side, as the reference does', () => {
    const r = rng(1);
    const img = Float32Array.from({ length: 4 * 100 }, () => Math.floor(r() * 256));
    expect(pdqFromLuminance(img, 4, 100)).toEqual({ hash: new Uint8Array(32), quality: 0 });
    expect(pdqFromLuminance(img, 100, 4)).toEqual({ hash: new Uint8Array(32), quality: 0 });
  });

  it('maps vertical frequency i+1 and horizontal frequency j+1 to bit 16i+j of the big-endian hex', () => {
    const lowRows = (i: number) => i < 8;
    const { hash } = pdqFromLuminance(
      basisImage((i) => lowRows(i)),
      64,
      64,
    );
    expect(pdqToHex(hash)).toBe('0'.repeat(32) + 'f'.repeat(32));
    expect(pdqToHex(hash)).toBe(expectedHex((i) => lowRows(i)));

    const evenColumns = pdqFromLuminance(
      basisImage((_, j) => j % 2 === 0),
      64,
      64,
    );
    expect(pdqToHex(evenColumns.hash)).toBe('5555'.repeat(16));

    // Horizontal frequencies 9..16 are the high byte of each 16-bit word.
    const highColumns = pdqFromLuminance(
      basisImage((_, j) => j >= 8),
      64,
      64,
    );
    expect(pdqToHex(highColumns.hash)).toBe('ff00'.repeat(16));
  });

  it('sets exactly the coefficients above the median for an arbitrary sign pattern', () => {
    const r = rng(7);
    // Exactly 128 positive coefficients, shuffled.
    const positive = Array.from({ length: 256 }, (_, k) => k < 128);
    for (let k = 255; k > 0; k--) {
      const m = Math.floor(r() * (k + 1));
      [positive[k], positive[m]] = [positive[m]!, positive[k]!];
    }
    const sign = (i: number, j: number) => positive[16 * i + j]!;
    const { hash } = pdqFromLuminance(basisImage(sign), 64, 64);
    expect(pdqToHex(hash)).toBe(expectedHex(sign));
    expect(bitCount(hash)).toBe(128);
  });

  it('thresholds at the median, not at zero: with 100 positive coefficients 128 bits are still set', () => {
    // The 28 largest of the 156 negative coefficients lie above the 128th smallest value too.
    const sign = (i: number, j: number) => 16 * i + j < 100;
    const { hash } = pdqFromLuminance(basisImage(sign), 64, 64);
    const positives = pdqFromHex(expectedHex(sign));
    expect(bitCount(hash)).toBe(128);
    expect(hash.every((byte, k) => (byte & positives[k]!) === positives[k])).toBe(true);
  });

  it('decimates a filtered image at the centres of a 64x64 grid', () => {
    // At 128 px the box window is 1 (no blur on integer pixels), and cell i is sampled at pixel
    // floor((i + 0.5) * 128 / 64) = 2i + 1; the even rows and columns must not matter.
    const sign = (i: number, j: number) => (i * 7 + j * 3) % 5 < 2 || (i === 0 && j < 26);
    const small = basisImage(sign);
    const r = rng(3);
    const big = new Float32Array(128 * 128);
    for (let y = 0; y < 128; y++) {
      for (let x = 0; x < 128; x++) {
        big[y * 128 + x] = y % 2 && x % 2 ? small[((y - 1) / 2) * 64 + (x - 1) / 2]! : Math.floor(r() * 256);
      }
    }
    const expected = pdqFromLuminance(small, 64, 64);
    expect(pdqFromLuminance(big, 128, 128)).toEqual(expected);
  });

  it('blurs with a window of half a 64th of each side, rounded up', () => {
    expect([64, 128, 129, 256, 512, 1004, 1600].map(jaroszWindowSize)).toEqual([1, 1, 2, 2, 4, 8, 13]);
  });

  it('keeps the hash of a pattern scaled up 4x with nearest-neighbour pixels', () => {
    const sign = (i: number, j: number) => (i + 2 * j) % 4 < 2;
    const small = basisImage(sign);
    const big = new Float32Array(256 * 256);
    for (let y = 0; y < 256; y++) for (let x = 0; x < 256; x++) big[y * 256 + x] = small[(y >> 2) * 64 + (x >> 2)]!;
    const d = hammingDistance(pdqFromLuminance(big, 256, 256).hash, pdqFromLuminance(small, 64, 64).hash);
    expect(d).toBeLessThanOrEqual(4);
  });

  it('scores quality from quantised 64x64 gradients: a ramp of 6 grey levels per cell gives 89', () => {
    // Each horizontal step is trunc(6 * 100 / 255) = 2, over 64 rows x 63 steps: 8064 / 90 = 89.
    const ramp = Float32Array.from({ length: 64 * 64 }, (_, k) => 6 * (k % 64));
    expect(pdqFromLuminance(ramp, 64, 64).quality).toBe(89);
    const transposed = Float32Array.from({ length: 64 * 64 }, (_, k) => 6 * Math.floor(k / 64));
    expect(pdqFromLuminance(transposed, 64, 64).quality).toBe(89);
    const steep = Float32Array.from({ length: 64 * 64 }, (_, k) => 3 * (k % 64));
    expect(pdqFromLuminance(steep, 64, 64).quality).toBe(44);
  });

  it('sets 128 bits for non-degenerate images and does not depend on earlier calls', () => {
    const r = rng(11);
    const a = Float32Array.from({ length: 300 * 200 }, () => Math.floor(r() * 256));
    const b = Float32Array.from({ length: 37 * 41 }, () => Math.floor(r() * 256));
    const copy = a.slice();
    const first = pdqFromLuminance(a, 300, 200);
    const other = pdqFromLuminance(b, 37, 41);
    expect(pdqFromLuminance(a, 300, 200)).toEqual(first);
    expect(a).toEqual(copy);
    expect(bitCount(first.hash)).toBe(128);
    expect(bitCount(other.hash)).toBe(128);
    const big = Float32Array.from({ length: 700 * 600 }, () => Math.floor(r() * 256));
    expect(bitCount(pdqFromLuminance(big, 700, 600).hash)).toBe(128);
  });

  it('equals a plain transcription of the reference pipeline on odd sizes and smooth or noisy content', () => {
    const r = rng(21);
    for (const [w, h] of [
      [300, 200],
      [129, 517],
      [517, 33],
      [1000, 7],
      [5, 5],
      [700, 901],
      [256, 256],
      [512, 512],
      [63, 65],
      [64, 200],
      [40, 40],
    ] as const) {
      const smooth = Float32Array.from({ length: w * h }, (_, k) => {
        const x = k % w;
        const y = Math.floor(k / w);
        return Math.round(128 + 60 * Math.sin(x / 23 + r()) * Math.cos(y / 17) + 20 * r());
      });
      const noisy = Float32Array.from({ length: w * h }, () => r() * 255);
      for (const img of [smooth, noisy]) {
        const { hash, quality } = pdqFromLuminance(img, w, h);
        expect({ hex: pdqToHex(hash), quality }, `${w}x${h}`).toEqual(naivePdq(img, w, h));
      }
    }
  });

  it('refuses a buffer shorter than the dimensions', () => {
    expect(() => pdqFromLuminance(new Float32Array(10), 5, 5)).toThrow(RangeError);
  });
});

describe('PDQ hex and distance', () => {
  // A hash in the reference's format (bridge-mods/aaa-orig.jpg in the C++ reference's output).
  const reference = 'd8f8f0cee0f4a84f0637022a078f67f0b36e2ed596621e1d33e6339c4e9c9b22';

  it('round-trips the reference format', () => {
    const bytes = pdqFromHex(reference);
    expect(bytes[0]).toBe(0xd8);
    expect(bytes[31]).toBe(0x22);
    expect(pdqToHex(bytes)).toBe(reference);
    expect(pdqToHex(pdqFromHex(reference.toUpperCase()))).toBe(reference);
    expect(isPdqHex(reference)).toBe(true);
  });

  it('rejects anything but 64 hex digits', () => {
    const edges = ['/', ':', '@', 'G', '`', 'g', '\u0660'].map((c) => reference.slice(0, 63) + c);
    for (const bad of ['', reference.slice(1), reference + '0', reference.replace('d', 'g'), ` ${reference.slice(1)}`, ...edges]) {
      expect(isPdqHex(bad)).toBe(false);
      expect(() => pdqFromHex(bad)).toThrow(RangeError);
    }
    expect(() => pdqToHex(new Uint8Array(31))).toThrow(RangeError);
  });

  it('counts differing bits like a big-integer popcount', () => {
    const r = rng(5);
    for (let t = 0; t < 200; t++) {
      const a = Uint8Array.from({ length: 32 }, () => Math.floor(r() * 256));
      const b = Uint8Array.from({ length: 32 }, () => Math.floor(r() * 256));
      const expected = popcountBig((BigInt('0x' + pdqToHex(a)) ^ BigInt('0x' + pdqToHex(b))).toString(16));
      expect(hammingDistance(a, b)).toBe(expected);
    }
    expect(hammingDistance(pdqFromHex(reference), pdqFromHex(reference))).toBe(0);
    expect(hammingDistance(new Uint8Array(32), new Uint8Array(32).fill(255))).toBe(256);
    expect(popcount32(0xffffffff)).toBe(32);
    expect(() => hammingDistance(new Uint8Array(32), new Uint8Array(31))).toThrow(RangeError);
  });
});
