import { createHash } from 'node:crypto';
import type { Metadata, OutputInfo } from 'sharp';
import { DomainError } from '#warden/kernel';
import { DecodeBudget } from './decoding/decode-budget.js';
import { countScans, readJpegFrame } from './decoding/jpeg-header.js';
import { WasmJpegDecoder } from './decoding/wasm-jpeg-decoder.js';
import { lumaOf, lumaOfPixels, pdqFromLuminance, pdqToHex } from './domain/pdq.js';

export interface ImageHashes {
  /** 64 lowercase hex digits. */
  readonly pdq: string;
  /** PDQ quality 0..100; below 50 the PDQ hash is unreliable and should not be matched. */
  readonly quality: number;
  /** Hex digests of the bytes as received. */
  readonly md5: string;
  readonly sha256: string;
  /** Decoded size, before any pre-resize. */
  readonly width: number;
  readonly height: number;
}

export interface HashImageOptions {
  /** Refuse images with more pixels than this (checked from the header, before decoding). */
  readonly limitInputPixels?: number;
}

export const DEFAULT_LIMIT_INPUT_PIXELS = 50_000_000;

/**
 * The reference hasher's I/O layer squashes any image with a side over 512 px to exactly 512x512
 * (CImg nearest-neighbour, aspect ratio not kept) before the PDQ filter. We do the same so that
 * large images hash like `cpp-current-build`; the squash costs nothing in matching power because
 * PDQ decimates to 64x64 without keeping the aspect ratio anyway.
 */
const PRE_RESIZE = 512;

/**
 * Decodes an image and computes PDQ (+ quality), MD5 and SHA-256.
 *
 * Decoding choices, each made to reproduce the reference hasher (and so the hashes other
 * organisations share):
 * - EXIF orientation is NOT applied: the reference decoders (CImg/libjpeg, Pillow in the Python
 *   port) hash the pixels in stored order, so hashes from partners are of stored pixels too. A
 *   phone photo tagged "rotate 90" hashes as stored; rotation invariance, where wanted, belongs
 *   to matching (PDQ's dihedral variants), not to decoding.
 * - Alpha is ignored, not composited: the reference takes the R,G,B channels as stored (Pillow's
 *   convert('RGB') does the same), so a transparent pixel hashes by its underlying colour.
 * - No colour management: embedded ICC profiles are ignored, as libjpeg/libpng do in the reference
 *   (applying it moves misc-images/c.png 2 bits away from the WASM reference's hash).
 * - Greyscale images use the grey value directly as luminance, as the reference does.
 * - Only the first page/frame of multi-page formats is hashed.
 * - Damaged data is hashed as far as it decodes (failOn 'none'): viewers still render truncated
 *   or slightly corrupt files, and a few flipped bytes must not be a way to dodge a match. Input
 *   that is not an image at all still fails on its header.
 */
export async function hashImage(bytes: Buffer, options: HashImageOptions = {}): Promise<ImageHashes> {
  const md5 = createHash('md5').update(bytes).digest('hex');
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const { luma, lumaWidth, lumaHeight, width, height } = await decodeLuminance(bytes, options);
  const { hash, quality } = pdqFromLuminance(luma, lumaWidth, lumaHeight);
  return { pdq: pdqToHex(hash), quality, md5, sha256, width, height };
}

export interface DecodedLuminance {
  /** Row-major luminance, lumaWidth x lumaHeight: the decoded image after the pre-resize. */
  readonly luma: Float32Array;
  readonly lumaWidth: number;
  readonly lumaHeight: number;
  /** Decoded size. */
  readonly width: number;
  readonly height: number;
}

/** The decode half of hashImage: the luminance plane the reference would hash. */
export async function decodeLuminance(bytes: Buffer, options: HashImageOptions = {}): Promise<DecodedLuminance> {
  const limitInputPixels = options.limitInputPixels ?? DEFAULT_LIMIT_INPUT_PIXELS;
  const small = await decodeSmallJpeg(bytes, limitInputPixels);
  if (small) return small;
  const input = { limitInputPixels, failOn: 'none', ignoreIcc: true, sequentialRead: true } as const;
  // Loaded on first use: libvips costs every CLI call a tenth of its start-up otherwise.
  const { default: sharp } = await import('sharp');
  let meta: Metadata;
  try {
    meta = await sharp(bytes, input).metadata();
  } catch (err) {
    throw decodeError(err, limitInputPixels);
  }
  if (!RASTER_FORMATS.has(meta.format)) throw notAnImage(`format ${meta.format} is not accepted`);
  let pipeline = sharp(bytes, input);
  // libvips would expand grey to sRGB; the reference takes grey values as they are.
  if (meta.channels <= 2) pipeline = pipeline.toColourspace('b-w');
  // The whole image decoded is held until its luminance plane (at most 512 x 512) is made: within
  // the process's budget of decoded bytes (DecodeBudget), the decode and the plane together.
  const pixelBytes = (meta.width ?? 0) * (meta.height ?? 0) * (meta.channels <= 2 ? 1 : meta.channels);
  return DECODES.run(pixelBytes, async () => {
    let decoded: { data: Buffer; info: OutputInfo };
    try {
      decoded = await pipeline.raw({ depth: 'uchar' }).toBuffer({ resolveWithObject: true });
    } catch (err) {
      throw decodeError(err, limitInputPixels);
    }
    const { data, info } = decoded;
    return lumaPlane(data, info.width, info.height, info.channels, info.channels < 3);
  });
}

/** Bytes of decoded pixels the process holds at once (docs/hashing.md, "Fetching"): 256 MiB, a larger image alone. */
export const DECODE_BUDGET_BYTES = 256 * 1024 * 1024;
const DECODES = new DecodeBudget(DECODE_BUDGET_BYTES);

const wasmJpeg = new WasmJpegDecoder();

/**
 * More scans than this and a JPEG is left to sharp. The WebAssembly decoder runs on the worker's
 * own thread, and libjpeg decodes every scan over the whole image, warning but going on when one
 * repeats: 200,000 empty scans (3 MB) held the thread for ten seconds, and a 512x512 file of 100
 * scans (refinement scans repeated) 170-250 ms, while the other organizations' evaluations waited.
 * libvips decodes off that thread and refuses the repeats. Encoders write 1 (baseline) to 10 scans
 * (libjpeg's progressive script; 6 for greyscale), mozjpeg's optimised scripts up to 16 (14
 * measured): those stay on the fast path, where libjpeg takes at most about twice the time of an
 * ordinary progressive file (about 30 ms at 512x512 of noise, against 15).
 */
const MAX_FAST_PATH_SCANS = 16;

/**
 * Larger files are left to sharp too: libjpeg reads every byte on the worker's thread (about 2 ms a
 * megabyte even of bytes it skips), and a JPEG of at most 512x512 is under 1 MB (750 KB at quality
 * 100, 4:4:4, of noise) unless something else is in it.
 */
const MAX_FAST_PATH_BYTES = 2 * 1024 * 1024;

/**
 * Whether a JPEG, of a frame the fast path decodes, is cheap enough to decode on the worker's
 * thread: at most MAX_FAST_PATH_BYTES and MAX_FAST_PATH_SCANS scans. Either way it hashes the same
 * (both decoders give the same pixels); sharp costs a small image its fixed ~0.5 ms.
 */
export function fitsFastPath(bytes: Uint8Array): boolean {
  return bytes.length <= MAX_FAST_PATH_BYTES && countScans(bytes, MAX_FAST_PATH_SCANS) <= MAX_FAST_PATH_SCANS;
}

/**
 * The fast path for the commonest small input: an 8-bit greyscale or colour JPEG hashed at its
 * own size, of at most MAX_FAST_PATH_SCANS scans and MAX_FAST_PATH_BYTES (fitsFastPath). Anything
 * else, or a file libjpeg gives up on, is left to sharp (undefined).
 */
async function decodeSmallJpeg(bytes: Buffer, limitInputPixels: number): Promise<DecodedLuminance | undefined> {
  const frame = readJpegFrame(bytes);
  if (!frame || frame.precision !== 8 || (frame.components !== 1 && frame.components !== 3)) return undefined;
  if (frame.width === 0 || frame.height === 0 || frame.width > PRE_RESIZE || frame.height > PRE_RESIZE) return undefined;
  if (frame.width * frame.height > limitInputPixels) return undefined;
  if (!fitsFastPath(bytes)) return undefined;
  const rgba = await wasmJpeg.decode(bytes);
  if (!rgba || rgba.width !== frame.width || rgba.height !== frame.height) return undefined;
  // libjpeg replicates grey into R, G and B; the reference takes the grey value itself.
  const pixels = new Uint8Array(rgba.data.buffer, rgba.data.byteOffset, rgba.data.length);
  return lumaPlane(pixels, rgba.width, rgba.height, 4, frame.components === 1);
}

/** The luminance plane of decoded pixels, squashed to 512x512 when a side is over 512. */
function lumaPlane(data: Uint8Array, width: number, height: number, channels: number, grey: boolean): DecodedLuminance {
  const squash = width > PRE_RESIZE || height > PRE_RESIZE;
  const lumaWidth = squash ? PRE_RESIZE : width;
  const lumaHeight = squash ? PRE_RESIZE : height;
  const luma = squash ? sampledLuma(data, width, height, channels, grey, lumaWidth, lumaHeight) : fullLuma(data, width * height, channels, grey);
  return { luma, lumaWidth, lumaHeight, width, height };
}

function fullLuma(data: Uint8Array, pixels: number, channels: number, grey: boolean): Float32Array {
  const luma = new Float32Array(pixels);
  if (grey) {
    for (let i = 0, p = 0; i < pixels; i++, p += channels) luma[i] = data[p]!;
  } else {
    lumaOfPixels(data, pixels, channels, luma);
  }
  return luma;
}

/**
 * Luminance of the image sampled onto outWidth x outHeight. Output pixel x takes source column
 * floor(x * width / outWidth), which is CImg's nearest-neighbour mapping.
 */
function sampledLuma(data: Uint8Array, width: number, height: number, channels: number, grey: boolean, outWidth: number, outHeight: number): Float32Array {
  const luma = new Float32Array(outWidth * outHeight);
  const columns = new Int32Array(outWidth);
  for (let x = 0; x < outWidth; x++) columns[x] = Math.floor((x * width) / outWidth) * channels;
  const rowBytes = width * channels;
  let o = 0;
  for (let y = 0; y < outHeight; y++) {
    const rowStart = Math.floor((y * height) / outHeight) * rowBytes;
    for (let x = 0; x < outWidth; x++) {
      const p = rowStart + columns[x]!;
      luma[o++] = grey ? data[p]! : lumaOf(data[p]!, data[p + 1]!, data[p + 2]!);
    }
  }
  return luma;
}

/**
 * Raster formats only: vector and document formats (SVG, PDF) would be rendered by further
 * libraries at a size the sender chooses, for no moderation benefit.
 */
const RASTER_FORMATS = new Set<string>(['jpeg', 'png', 'webp', 'gif', 'tiff', 'heif', 'avif', 'jp2']);

function notAnImage(detail: string): DomainError {
  return new DomainError('unsupported-media-type', [{ title: 'Not a supported image', detail }]);
}

function decodeError(err: unknown, limitInputPixels: number): DomainError {
  if (err instanceof DomainError) return err;
  const message = err instanceof Error ? err.message : String(err);
  if (/pixel limit/i.test(message)) {
    return new DomainError('payload-too-large', [{ title: 'Image too large', detail: `The image has more than ${limitInputPixels} pixels` }]);
  }
  return notAnImage(`The content could not be decoded as an image (${message})`);
}
