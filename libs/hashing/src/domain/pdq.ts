/**
 * PDQ, Meta's 256-bit perceptual image hash, computed from a luminance plane.
 *
 * Follows the public reference (facebook/ThreatExchange pdq/cpp, described in Meta's PDQ hashing
 * paper): two X,Y passes of a Jarosz box filter (a tent filter) → 64x64 decimation at the cell
 * centres → quality from the gradients of that 64x64 → DCT rows/columns 1..16 (DC skipped) →
 * one bit per coefficient that is strictly greater than the median coefficient.
 *
 * The reference computes in 32-bit floats. Every sum and product below is rounded to float32
 * (Math.fround or a Float32Array store) in the reference's order of operations, so that the same
 * luminance gives bit-identical hashes: a coefficient close to the median would otherwise flip.
 */

export const PDQ_HASH_BYTES = 32;
export const PDQ_HEX_LENGTH = 64;

export interface PdqHashAndQuality {
  /** 32 bytes, big-endian: byte 0 holds bits 255..248, as in the reference's hex form. */
  readonly hash: Uint8Array;
  /** 0..100; the reference treats hashes of quality < 50 as unreliable. */
  readonly quality: number;
}

/** The reference returns an all-zero hash of quality 0 below this size. */
const MIN_HASHABLE_DIM = 5;

const LUMA_R = Math.fround(0.299);
const LUMA_G = Math.fround(0.587);
const LUMA_B = Math.fround(0.114);

/** 16x64 row-major: DCT basis rows 1..16 of a 64-point DCT-II, scaled by sqrt(2/64). */
const DCT_16x64 = (() => {
  const m = new Float32Array(16 * 64);
  const scale = Math.fround(Math.sqrt(2 / 64));
  for (let i = 0; i < 16; i++) {
    for (let j = 0; j < 64; j++) {
      m[i * 64 + j] = scale * Math.cos((Math.PI / 2 / 64) * (i + 1) * (2 * j + 1));
    }
  }
  return m;
})();

// Scratch buffers, reused across calls: the hashing path allocates only the 32-byte result.
// Full-size planes are kept for images up to the reference's 512x512 pre-resize; larger calls
// get one-off buffers so that an occasional huge image does not pin memory.
const RETAINED_PLANE = 512 * 512;
const planeA = new Float32Array(RETAINED_PLANE);
const planeB = new Float32Array(RETAINED_PLANE);
const buf64x64 = new Float32Array(64 * 64);
const buf16x64 = new Float32Array(16 * 64);
const buf16x16 = new Float32Array(16 * 16);
const sorted16x16 = new Float32Array(16 * 16);
let columnSums = new Float32Array(512);
const sampledColumns = new Int32Array(64);
const sampledRows = new Int32Array(64);
const sampledSums = new Float32Array(64);
let sampledColumnMask = new Uint8Array(512);
const ROW_BLOCK = 16;
const rowSums = new Float32Array(ROW_BLOCK);

/** Luminance of one pixel exactly as the reference computes it (float32 steps, no FMA). */
export function lumaOf(r: number, g: number, b: number): number {
  return Math.fround(Math.fround(Math.fround(LUMA_R * r) + Math.fround(LUMA_G * g)) + Math.fround(LUMA_B * b));
}

// Each weighted channel as a float32 product, looked up instead of multiplied per pixel.
const WEIGHTED_R = Float32Array.from({ length: 256 }, (_, v) => LUMA_R * v);
const WEIGHTED_G = Float32Array.from({ length: 256 }, (_, v) => LUMA_G * v);
const WEIGHTED_B = Float32Array.from({ length: 256 }, (_, v) => LUMA_B * v);

/**
 * lumaOf for every pixel of 8-bit interleaved R,G,B(,…) samples, `channels` bytes per pixel
 * (further channels such as alpha are ignored); into[i] for pixel i.
 */
export function lumaOfPixels(data: Uint8Array, pixels: number, channels: number, into: Float32Array): void {
  for (let i = 0, p = 0; i < pixels; i++, p += channels) {
    into[i] = Math.fround(WEIGHTED_R[data[p]!]! + WEIGHTED_G[data[p + 1]!]!) + WEIGHTED_B[data[p + 2]!]!;
  }
}

/**
 * Hashes a row-major luminance plane (values 0..255). The input is not modified.
 * Images smaller than 5 px on a side give the all-zero hash and quality 0, as in the reference.
 */
export function pdqFromLuminance(luma: Float32Array, width: number, height: number): PdqHashAndQuality {
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 0 || height < 0) {
    throw new RangeError(`invalid dimensions ${width}x${height}`);
  }
  if (luma.length < width * height) {
    throw new RangeError(`luminance has ${luma.length} values, ${width}x${height} needs ${width * height}`);
  }
  const hash = new Uint8Array(PDQ_HASH_BYTES);
  if (width < MIN_HASHABLE_DIM || height < MIN_HASHABLE_DIM) return { hash, quality: 0 };

  if (width === 64 && height === 64) {
    // The reference skips the filter when the input already is 64x64 (e.g. ffmpeg-scaled frames).
    buf64x64.set(luma.subarray(0, 64 * 64));
  } else {
    downsampleTo64x64(luma, width, height);
  }
  const quality = qualityOf64x64(buf64x64);
  dct64To16(buf64x64, buf16x64, buf16x16);
  bitsAboveMedian(buf16x16, hash);
  return { hash, quality };
}

function downsampleTo64x64(luma: Float32Array, width: number, height: number): void {
  const n = width * height;
  if (n > RETAINED_PLANE) {
    filterAndDecimate(luma, new Float32Array(n), new Float32Array(n), width, height);
  } else {
    filterAndDecimate(luma, planeA, planeB, width, height);
  }
}

/**
 * Two X,Y passes of the box filter, then the 64x64 samples. The hash reads the filtered plane only
 * at the 64x64 cell centres, so the last pass computes only what reaches them: its row filter
 * still runs every row's running sum (the rounding of a running sum depends on all of it) but
 * divides and stores only at the sampled columns, and its column filter runs only down the 64
 * sampled columns. The operations that produce the samples are unchanged, so are their values.
 */
function filterAndDecimate(luma: Float32Array, a: Float32Array, b: Float32Array, width: number, height: number): void {
  const windowAlongRows = jaroszWindowSize(width);
  const windowAlongCols = jaroszWindowSize(height);
  if (columnSums.length < width) columnSums = new Float32Array(width);
  if (sampledColumnMask.length < width) sampledColumnMask = new Uint8Array(width);
  cellCentres(width, sampledColumns);
  cellCentres(height, sampledRows);
  sampledColumnMask.fill(0, 0, width);
  for (let j = 0; j < 64; j++) sampledColumnMask[sampledColumns[j]!] = 1;

  boxAlongRows(luma, a, width, height, windowAlongRows, null);
  boxAlongColumns(a, b, width, height, windowAlongCols);
  boxAlongRows(b, a, width, height, windowAlongRows, sampledColumnMask);
  boxAlongSampledColumns(a, width, height, windowAlongCols, buf64x64);
}

/** Index of the pixel at the centre of each of 64 cells along a side (repeats when side < 64). */
function cellCentres(dimension: number, into: Int32Array): void {
  for (let i = 0; i < 64; i++) into[i] = Math.trunc(((i + 0.5) * dimension) / 64);
}

/** Half of a 64th of the dimension, rounded up: two passes then span one 64x64 cell. */
export function jaroszWindowSize(dimension: number): number {
  return Math.trunc((dimension + 2 * 64 - 1) / (2 * 64));
}

/**
 * Moving average along each row over `window` samples around each output, the window shrinking
 * at the edges: the reference's four phases (accumulate; write while growing; add and subtract;
 * write while shrinking) with its running float32 sum, so the rounding matches too. Each row's
 * sum is a chain of dependent operations, so ROW_BLOCK rows are interleaved to keep several
 * chains in flight; per row, the operations and their order are unchanged.
 */
function boxAlongRows(input: Float32Array, output: Float32Array, width: number, height: number, window: number, outputColumns: Uint8Array | null): void {
  const half = (window + 2) >> 1;
  const sums = rowSums;
  for (let top = 0; top < height; top += ROW_BLOCK) {
    const first = top * width;
    const last = Math.min(height, top + ROW_BLOCK) * width;
    sums.fill(0);
    let ri = 0;
    let li = 0;
    let oi = 0;
    let count = 0;
    for (let k = half - 1; k > 0; k--, ri++) {
      for (let r = 0, p = first; p < last; r++, p += width) sums[r] = sums[r]! + input[p + ri]!;
      count++;
    }
    for (let k = window - half + 1; k > 0; k--, ri++, oi++) {
      count++;
      for (let r = 0, p = first; p < last; r++, p += width) sums[r] = sums[r]! + input[p + ri]!;
      if (outputColumns === null || outputColumns[oi] === 1) writeSums(sums, output, first + oi, last, width, count);
    }
    for (let k = width - window; k > 0; k--, ri++, li++, oi++) {
      for (let r = 0, p = first; p < last; r++, p += width) sums[r] = Math.fround(sums[r]! + input[p + ri]!) - input[p + li]!;
      if (outputColumns === null || outputColumns[oi] === 1) writeSums(sums, output, first + oi, last, width, count);
    }
    for (let k = half - 1; k > 0; k--, li++, oi++) {
      count--;
      for (let r = 0, p = first; p < last; r++, p += width) sums[r] = sums[r]! - input[p + li]!;
      if (outputColumns === null || outputColumns[oi] === 1) writeSums(sums, output, first + oi, last, width, count);
    }
  }
}

/** output[p] = sums[r] / count down one column of a block of rows. */
function writeSums(sums: Float32Array, output: Float32Array, start: number, end: number, width: number, count: number): void {
  for (let r = 0, p = start; p < end; r++, p += width) output[p] = sums[r]! / count;
}

/**
 * The same moving average down every column at once: per column the same operations in the same
 * order (so the same float32 results), but walking the plane row by row instead of striding
 * across it, which keeps the memory access sequential.
 */
function boxAlongColumns(input: Float32Array, output: Float32Array, width: number, height: number, window: number): void {
  const half = (window + 2) >> 1;
  const sums = columnSums;
  sums.fill(0, 0, width);
  let ri = 0;
  let li = 0;
  let oi = 0;
  let count = 0;
  for (let k = half - 1; k > 0; k--, ri += width) {
    for (let x = 0; x < width; x++) sums[x] = sums[x]! + input[ri + x]!;
    count++;
  }
  for (let k = window - half + 1; k > 0; k--, ri += width, oi += width) {
    count++;
    for (let x = 0; x < width; x++) {
      const sum = Math.fround(sums[x]! + input[ri + x]!);
      sums[x] = sum;
      output[oi + x] = sum / count;
    }
  }
  for (let k = height - window; k > 0; k--, ri += width, li += width, oi += width) {
    for (let x = 0; x < width; x++) {
      const sum = Math.fround(Math.fround(sums[x]! + input[ri + x]!) - input[li + x]!);
      sums[x] = sum;
      output[oi + x] = sum / count;
    }
  }
  for (let k = half - 1; k > 0; k--, li += width, oi += width) {
    count--;
    for (let x = 0; x < width; x++) {
      const sum = Math.fround(sums[x]! - input[li + x]!);
      sums[x] = sum;
      output[oi + x] = sum / count;
    }
  }
}

/**
 * boxAlongColumns restricted to the 64 sampled columns, writing only the sampled rows, straight
 * into the 64x64 grid: the same running sums in the same order, so the same samples.
 */
function boxAlongSampledColumns(input: Float32Array, width: number, height: number, window: number, out: Float32Array): void {
  const half = (window + 2) >> 1;
  const sums = sampledSums;
  const columns = sampledColumns;
  sums.fill(0);
  let ri = 0;
  let li = 0;
  let oi = 0;
  let count = 0;
  let next = 0;
  const emit = (): void => {
    while (next < 64 && sampledRows[next] === oi) {
      const o = next * 64;
      for (let j = 0; j < 64; j++) out[o + j] = sums[j]! / count;
      next++;
    }
  };
  for (let k = half - 1; k > 0; k--, ri += width) {
    for (let j = 0; j < 64; j++) sums[j] = sums[j]! + input[ri + columns[j]!]!;
    count++;
  }
  for (let k = window - half + 1; k > 0; k--, ri += width, oi++) {
    count++;
    for (let j = 0; j < 64; j++) sums[j] = sums[j]! + input[ri + columns[j]!]!;
    emit();
  }
  for (let k = height - window; k > 0; k--, ri += width, li += width, oi++) {
    for (let j = 0; j < 64; j++) sums[j] = Math.fround(sums[j]! + input[ri + columns[j]!]!) - input[li + columns[j]!]!;
    emit();
  }
  for (let k = half - 1; k > 0; k--, li += width, oi++) {
    count--;
    for (let j = 0; j < 64; j++) sums[j] = sums[j]! - input[li + columns[j]!]!;
    emit();
  }
}

/** Sum of quantised absolute gradients, scaled so that 100 means "plenty of structure". */
function qualityOf64x64(a: Float32Array): number {
  let gradientSum = 0;
  for (let i = 0; i < 63; i++) {
    for (let j = 0; j < 64; j++) {
      gradientSum += Math.abs(quantisedStep(a[i * 64 + j]!, a[(i + 1) * 64 + j]!));
    }
  }
  for (let i = 0; i < 64; i++) {
    for (let j = 0; j < 63; j++) {
      gradientSum += Math.abs(quantisedStep(a[i * 64 + j]!, a[i * 64 + j + 1]!));
    }
  }
  return Math.min(100, Math.trunc(gradientSum / 90));
}

function quantisedStep(u: number, v: number): number {
  return Math.trunc(Math.fround(Math.fround(Math.fround(u - v) * 100) / 255));
}

/**
 * out16x16 = D · A · Dᵀ with D the 16x64 DCT basis; t16x64 holds D · A. Each sum runs over k in
 * increasing order as in the reference; the first product walks A by rows (k outer, j inner) so
 * that its memory access is sequential, which changes no sum's order of operations.
 */
function dct64To16(a: Float32Array, t: Float32Array, out: Float32Array): void {
  const d = DCT_16x64;
  t.fill(0);
  for (let i = 0; i < 16; i++) {
    const ti = i * 64;
    for (let k = 0; k < 64; k++) {
      const dik = d[ti + k]!;
      const ak = k * 64;
      for (let j = 0; j < 64; j++) t[ti + j] = t[ti + j]! + Math.fround(dik * a[ak + j]!);
    }
  }
  for (let i = 0; i < 16; i++) {
    const ti = i * 64;
    for (let j = 0; j < 16; j++) {
      const dj = j * 64;
      let sum = 0;
      for (let k = 0; k < 64; k++) sum = Math.fround(sum + Math.fround(t[ti + k]! * d[dj + k]!));
      out[i * 16 + j] = sum;
    }
  }
}

/**
 * Coefficient (i, j) sets bit k = 16i + j when strictly above the median, where the median is
 * the 128th smallest of the 256 values (what the reference's Torben selection returns). Hence
 * exactly 128 bits are set whenever the 128th and 129th smallest coefficients differ.
 */
function bitsAboveMedian(coefficients: Float32Array, hash: Uint8Array): void {
  sorted16x16.set(coefficients);
  sorted16x16.sort();
  const median = sorted16x16[127]!;
  for (let k = 0; k < 256; k++) {
    if (coefficients[k]! > median) hash[31 - (k >> 3)]! |= 1 << (k & 7);
  }
}

const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));

/** 64 lowercase hex digits, byte-compatible with the reference's output. */
export function pdqToHex(hash: Uint8Array): string {
  if (hash.length !== PDQ_HASH_BYTES) throw new RangeError(`a PDQ hash has 32 bytes, got ${hash.length}`);
  let s = '';
  for (let i = 0; i < PDQ_HASH_BYTES; i++) s += HEX[hash[i]!];
  return s;
}

const HEX_PATTERN = /^[0-9a-fA-F]{64}$/;

export function isPdqHex(hex: string): boolean {
  return HEX_PATTERN.test(hex);
}

/**
 * Parses 64 hex digits (either case); throws RangeError on anything else. By character codes: a
 * bank of a million hashes is parsed when it loads, and a pattern test plus a parseInt of a slice
 * per byte cost a second of the evaluating thread for it.
 */
export function pdqFromHex(hex: string, into: Uint8Array = new Uint8Array(PDQ_HASH_BYTES)): Uint8Array {
  if (hex.length !== 2 * PDQ_HASH_BYTES) throw new RangeError('a PDQ hash is 64 hexadecimal digits');
  for (let i = 0; i < PDQ_HASH_BYTES; i++) {
    const high = hexValue(hex.charCodeAt(2 * i));
    const low = hexValue(hex.charCodeAt(2 * i + 1));
    if ((high | low) < 0) throw new RangeError('a PDQ hash is 64 hexadecimal digits');
    into[i] = (high << 4) | low;
  }
  return into;
}

/** The value of one hex digit's character code, or -1. */
function hexValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48; // 0-9
  if (code >= 97 && code <= 102) return code - 87; // a-f
  if (code >= 65 && code <= 70) return code - 55; // A-F
  return -1;
}

/** Number of set bits of a 32-bit integer. */
export function popcount32(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

export function hammingDistance(a: Uint8Array, b: Uint8Array): number {
  if (a.length !== b.length) throw new RangeError(`hashes differ in length: ${a.length} and ${b.length}`);
  let d = 0;
  let i = 0;
  for (; i + 4 <= a.length; i += 4) {
    d += popcount32(((a[i]! ^ b[i]!) << 24) | ((a[i + 1]! ^ b[i + 1]!) << 16) | ((a[i + 2]! ^ b[i + 2]!) << 8) | (a[i + 3]! ^ b[i + 3]!));
  }
  for (; i < a.length; i++) d += popcount32(a[i]! ^ b[i]!);
  return d;
}

export function bitCount(hash: Uint8Array): number {
  let n = 0;
  for (let i = 0; i < hash.length; i++) n += popcount32(hash[i]!);
  return n;
}
