import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it, type MockInstance, vi } from 'vitest';
import { countScans } from './decoding/jpeg-header.js';
import { WasmJpegDecoder } from './decoding/wasm-jpeg-decoder.js';
import { lumaOfPixels, pdqFromLuminance, pdqToHex } from './domain/pdq.js';
import { fitsFastPath, hashImage } from './image-hashes.js';

/**
 * A minimal JPEG encoder for tests: planes of 8-bit samples (one, or Y, Cb, Cr at full resolution),
 * quantized once, written either as one baseline scan or progressively by spectral selection: a DC
 * scan of every component, then each component's AC coefficients in `acBands` bands of their own
 * scans (1 + components x acBands scans). The same coefficients either way, so every decoder
 * decodes both files to the same pixels.
 */
function scriptedJpeg(planes: readonly Uint8Array[], width: number, height: number, acBands: number | 'baseline'): Buffer {
  // Zigzag order: ZIGZAG[k] is the natural (row-major) index of the k-th coefficient.
  const ZIGZAG: number[] = [];
  for (let s = 0; s < 15; s++) {
    const cells: number[] = [];
    for (let y = 0; y < 8; y++) if (s - y >= 0 && s - y < 8) cells.push(y * 8 + (s - y));
    ZIGZAG.push(...(s % 2 === 1 ? cells : cells.reverse()));
  }
  // The sample quantization table of JPEG's Annex K (luminance), halved: quality about 75.
  const K1 = [
    16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56, 14, 17, 22, 29, 51, 87, 80, 62, 18, 22, 37, 56, 68, 109,
    103, 77, 24, 35, 55, 64, 81, 104, 113, 92, 49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99,
  ];
  const quant = ZIGZAG.map((natural) => Math.max(1, Math.round(K1[natural]! / 2)));
  const bw = Math.ceil(width / 8);
  const bh = Math.ceil(height / 8);
  const cos = Array.from({ length: 64 }, (_, i) => Math.cos(((2 * (i % 8) + 1) * Math.floor(i / 8) * Math.PI) / 16));
  const c = (u: number) => (u === 0 ? Math.SQRT1_2 : 1);
  // Each component's blocks, quantized, in zigzag order.
  const blocks = planes.map((plane) => {
    const out: Int16Array[] = [];
    for (let by = 0; by < bh; by++) {
      for (let bx = 0; bx < bw; bx++) {
        const f = new Float64Array(64);
        for (let y = 0; y < 8; y++) {
          for (let x = 0; x < 8; x++) {
            f[y * 8 + x] = plane[Math.min(height - 1, by * 8 + y) * width + Math.min(width - 1, bx * 8 + x)]! - 128;
          }
        }
        // Separable: rows, then columns.
        const rows = new Float64Array(64);
        for (let y = 0; y < 8; y++) {
          for (let u = 0; u < 8; u++) {
            let sum = 0;
            for (let x = 0; x < 8; x++) sum += f[y * 8 + x]! * cos[u * 8 + x]!;
            rows[y * 8 + u] = 0.5 * c(u) * sum;
          }
        }
        const coef = new Int16Array(64);
        for (let v = 0; v < 8; v++) {
          for (let u = 0; u < 8; u++) {
            let sum = 0;
            for (let y = 0; y < 8; y++) sum += rows[y * 8 + u]! * cos[v * 8 + y]!;
            const k = ZIGZAG.indexOf(v * 8 + u);
            coef[k] = Math.round((0.5 * c(v) * sum) / quant[k]!);
          }
        }
        out.push(coef);
      }
    }
    return out;
  });

  // Huffman tables every symbol fits: DC categories 0..11 at 4 bits, AC run/size symbols (and EOB, ZRL) at 8 bits.
  const dcSymbols = Array.from({ length: 12 }, (_, i) => i);
  const acSymbols = [0x00, 0xf0];
  for (let run = 0; run < 16; run++) for (let size = 1; size <= 10; size++) acSymbols.push((run << 4) | size);
  const dcCode = (symbol: number) => [symbol, 4] as const;
  const acCode = (symbol: number) => [acSymbols.indexOf(symbol), 8] as const;
  const counts = (length: number, n: number) => Array.from({ length: 16 }, (_, i) => (i === length - 1 ? n : 0));

  const bytes: number[] = [0xff, 0xd8];
  const segment = (marker: number, body: number[]) => bytes.push(0xff, marker, (body.length + 2) >> 8, (body.length + 2) & 255, ...body);
  segment(0xdb, [0, ...quant]);
  const components = planes.map((_, i) => [i + 1, 0x11, 0]).flat();
  segment(acBands === 'baseline' ? 0xc0 : 0xc2, [8, height >> 8, height & 255, width >> 8, width & 255, planes.length, ...components]);
  segment(0xc4, [0x00, ...counts(4, dcSymbols.length), ...dcSymbols]);
  segment(0xc4, [0x10, ...counts(8, acSymbols.length), ...acSymbols]);

  // One scan: its header, then each block's DC difference and/or AC coefficients Ss..Se.
  const scan = (comps: readonly number[], ss: number, se: number) => {
    segment(0xda, [comps.length, ...comps.flatMap((i) => [i + 1, 0x00]), ss, se, 0]);
    let acc = 0;
    let bits = 0;
    const put = (value: number, length: number) => {
      for (let i = length - 1; i >= 0; i--) {
        acc = (acc << 1) | ((value >> i) & 1);
        if (++bits === 8) {
          bytes.push(acc);
          if (acc === 0xff) bytes.push(0);
          acc = 0;
          bits = 0;
        }
      }
    };
    const magnitude = (v: number) => {
      const size = v === 0 ? 0 : 32 - Math.clz32(Math.abs(v));
      return [size, v < 0 ? v + (1 << size) - 1 : v] as const;
    };
    const pred = comps.map(() => 0);
    for (let b = 0; b < bw * bh; b++) {
      comps.forEach((comp, n) => {
        const coef = blocks[comp]![b]!;
        if (ss === 0) {
          const [size, bitsOf] = magnitude(coef[0]! - pred[n]!);
          pred[n] = coef[0]!;
          put(...dcCode(size));
          put(bitsOf, size);
        }
        const from = Math.max(ss, 1);
        if (se < from) return;
        let run = 0;
        for (let k = from; k <= se; k++) {
          if (coef[k] === 0) {
            run++;
            continue;
          }
          for (; run > 15; run -= 16) put(...acCode(0xf0));
          const [size, bitsOf] = magnitude(coef[k]!);
          put(...acCode((run << 4) | size));
          put(bitsOf, size);
          run = 0;
        }
        if (run > 0) put(...acCode(0x00));
      });
    }
    if (bits > 0) put(0xff, 8 - bits);
  };
  const all = planes.map((_, i) => i);
  if (acBands === 'baseline') scan(all, 0, 63);
  else {
    scan(all, 0, 0);
    for (const comp of all) {
      for (let band = 0; band < acBands; band++) scan([comp], 1 + Math.floor((63 * band) / acBands), Math.floor((63 * (band + 1)) / acBands));
    }
  }
  bytes.push(0xff, 0xd9);
  return Buffer.from(bytes);
}

const W = 512;
const H = 512;

/** What the fast path made of a JPEG before it left files of many scans to sharp: libjpeg in WebAssembly, then PDQ. */
async function fastPathHash(jpeg: Buffer, grey: boolean): Promise<{ pdq: string; quality: number }> {
  const rgba = (await new WasmJpegDecoder().decode(jpeg))!;
  const pixels = new Uint8Array(rgba.data.buffer, rgba.data.byteOffset, rgba.data.length);
  const luma = new Float32Array(rgba.width * rgba.height);
  if (grey) for (let i = 0; i < luma.length; i++) luma[i] = pixels[i * 4]!;
  else lumaOfPixels(pixels, luma.length, 4, luma);
  const { hash, quality } = pdqFromLuminance(luma, rgba.width, rgba.height);
  return { pdq: pdqToHex(hash), quality };
}

/**
 * Which decoder a JPEG goes to: libjpeg in WebAssembly on the worker's thread for an ordinary
 * file, sharp (off that thread) for one of many scans or many bytes, where libjpeg would hold the
 * thread for hundreds of milliseconds; the hash is the same either way. The files of many scans
 * are valid progressive JPEGs (scriptedJpeg), of a photo-like image made with sharp.
 */
describe('hashImage: the WebAssembly fast path and its limits', () => {
  let rgb: Buffer;
  let planes: Uint8Array[];
  beforeAll(async () => {
    rgb = await sharp({ create: { width: W, height: H, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 60 } } })
      .blur(3)
      .raw()
      .toBuffer();
    // JFIF's YCbCr, as an encoder converts RGB.
    const clamp = (v: number) => Math.max(0, Math.min(255, Math.round(v)));
    planes = [new Uint8Array(W * H), new Uint8Array(W * H), new Uint8Array(W * H)];
    for (let i = 0; i < W * H; i++) {
      const [r, g, b] = [rgb[i * 3]!, rgb[i * 3 + 1]!, rgb[i * 3 + 2]!];
      planes[0]![i] = clamp(0.299 * r + 0.587 * g + 0.114 * b);
      planes[1]![i] = clamp(128 - 0.168736 * r - 0.331264 * g + 0.5 * b);
      planes[2]![i] = clamp(128 + 0.5 * r - 0.418688 * g - 0.081312 * b);
    }
  });

  let decode: MockInstance<WasmJpegDecoder['decode']>;
  beforeAll(() => {
    decode = vi.spyOn(WasmJpegDecoder.prototype, 'decode');
  });
  afterAll(() => decode.mockRestore());

  /** Hashes `jpeg` and says whether the fast path decoded it. */
  const hashed = async (jpeg: Buffer) => {
    decode.mockClear();
    const h = await hashImage(jpeg);
    return { pdq: h.pdq, quality: h.quality, fastPath: decode.mock.calls.length > 0, size: [h.width, h.height] };
  };

  it('keeps ordinary JPEGs on the fast path: baseline, libjpeg progressive (10 scans, 6 grey), mozjpeg (up to 16)', async () => {
    const image = () => sharp(rgb, { raw: { width: W, height: H, channels: 3 } });
    for (const options of [
      {},
      { progressive: true },
      { progressive: true, chromaSubsampling: '4:4:4' },
      { mozjpeg: true },
      { mozjpeg: true, quality: 95, chromaSubsampling: '4:4:4' },
    ] as const) {
      for (const grey of [false, true]) {
        const jpeg = await (grey ? image().toColourspace('b-w') : image()).jpeg(options).toBuffer();
        expect(countScans(jpeg, 100)).toBeLessThanOrEqual(16);
        expect(fitsFastPath(jpeg)).toBe(true);
        expect(await hashed(jpeg)).toMatchObject({ fastPath: true, size: [W, H] });
      }
    }
    // mozjpeg's optimised scans of a synthetic pattern: more than libjpeg's 10, still the fast path.
    const pattern = Buffer.alloc(W * H * 3);
    for (let i = 0; i < W * H; i++) {
      const [x, y] = [i % W, Math.floor(i / W)];
      pattern.set([(x * 5 + y * 3) & 255, (x * y) & 255, (x * 11 + ((y * 7) ^ x)) & 255], i * 3);
    }
    const optimised = await sharp(pattern, { raw: { width: W, height: H, channels: 3 } })
      .jpeg({ mozjpeg: true, quality: 95, chromaSubsampling: '4:4:4' })
      .toBuffer();
    expect(countScans(optimised, 100)).toBeGreaterThan(12);
    expect(await hashed(optimised)).toMatchObject({ fastPath: true });
    // 16 scans, as mozjpeg's scripts have at most: still the fast path.
    expect(await hashed(scriptedJpeg(planes.slice(0, 1), W, H, 15))).toMatchObject({ fastPath: true });
  });

  it('leaves a valid progressive JPEG of more than 16 scans to sharp, hashed exactly as the fast path hashed it', async () => {
    const baseline = scriptedJpeg(planes, W, H, 'baseline');
    const reference = await hashed(baseline);
    expect(reference.fastPath).toBe(true);
    expect(reference.quality).toBeGreaterThanOrEqual(50);
    // 1 + 3 x bands scans of the same coefficients: 19, 31 and 100.
    for (const bands of [6, 10, 33]) {
      const progressive = scriptedJpeg(planes, W, H, bands);
      expect(countScans(progressive, 1000)).toBe(1 + 3 * bands);
      expect(fitsFastPath(progressive)).toBe(false);
      const h = await hashed(progressive);
      expect(h).toEqual({ ...reference, fastPath: false });
      expect({ pdq: h.pdq, quality: h.quality }).toEqual(await fastPathHash(progressive, false));
    }
    // Greyscale at the limit: 16 scans on the fast path, 17 to sharp, the same hash.
    const grey = planes.slice(0, 1);
    const sixteen = await hashed(scriptedJpeg(grey, W, H, 15));
    const seventeen = await hashed(scriptedJpeg(grey, W, H, 16));
    expect([sixteen.fastPath, seventeen.fastPath]).toEqual([true, false]);
    expect(seventeen.pdq).toBe(sixteen.pdq);
    expect({ pdq: seventeen.pdq, quality: seventeen.quality }).toEqual(await fastPathHash(scriptedJpeg(grey, W, H, 16), true));
  });

  it('leaves a JPEG of more than 2 MiB to sharp, whatever makes it so large, hashed the same', async () => {
    const jpeg = await sharp(rgb, { raw: { width: W, height: H, channels: 3 } })
      .jpeg({ progressive: true })
      .toBuffer();
    // Application segments of 64 KiB after the start of image, as metadata would be: libjpeg reads past each.
    const padded = (bytes: number) => {
      const segment = Buffer.concat([Buffer.from([0xff, 0xe9, 0xff, 0xff]), Buffer.alloc(65_533, 0x41)]);
      const segments = Array.from({ length: Math.ceil((bytes - jpeg.length) / segment.length) }, () => segment);
      return Buffer.concat([jpeg.subarray(0, 2), ...segments, jpeg.subarray(2)]);
    };
    const ordinary = await hashed(jpeg);
    expect(ordinary.fastPath).toBe(true);
    const under = padded(2 * 1024 * 1024 - 70_000);
    expect(under.length).toBeLessThanOrEqual(2 * 1024 * 1024);
    expect(await hashed(under)).toEqual(ordinary);
    const over = padded(2 * 1024 * 1024 + 1);
    expect(over.length).toBeGreaterThan(2 * 1024 * 1024);
    expect(await hashed(over)).toEqual({ ...ordinary, fastPath: false });
  });

  it('counts scans from the header: a crafted progressive header with 17 scan headers is over the limit', () => {
    // SOI, SOF2 (8x8 grey), then scan headers each with a byte of data, then EOI: nothing to decode, only to count.
    const sof2 = [0xff, 0xc2, 0, 11, 8, 0, 8, 0, 8, 1, 1, 0x11, 0];
    const sos = [0xff, 0xda, 0, 8, 1, 1, 0, 0, 0, 0, 0x00];
    const crafted = (scans: number) => Buffer.from([0xff, 0xd8, ...sof2, ...Array.from({ length: scans }, () => sos).flat(), 0xff, 0xd9]);
    expect(fitsFastPath(crafted(16))).toBe(true);
    expect(fitsFastPath(crafted(17))).toBe(false);
  });
});
