/** What a JPEG's frame header (SOFn) declares, read without decoding the image. */
export interface JpegFrame {
  readonly width: number;
  readonly height: number;
  /** 1 for greyscale, 3 for YCbCr/RGB, 4 for CMYK/YCCK. */
  readonly components: number;
  readonly precision: number;
  /** The SOF marker's low nibble: 0 baseline, 1 extended, 2 progressive (Huffman); others rarer. */
  readonly process: number;
}

const SOI = 0xd8;
const SOS = 0xda;
const EOI = 0xd9;

export function isJpeg(bytes: Uint8Array): boolean {
  return bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === SOI && bytes[2] === 0xff;
}

/**
 * Walks the marker segments up to the first frame header. Returns undefined when there is none
 * before the scan data or the segments run off the end: callers then leave the file to the
 * general decoder, which reports what is wrong with it.
 */
export function readJpegFrame(bytes: Uint8Array): JpegFrame | undefined {
  if (!isJpeg(bytes)) return undefined;
  let p = 2;
  while (p + 4 <= bytes.length) {
    if (bytes[p] !== 0xff) return undefined;
    const marker = bytes[p + 1]!;
    if (marker === 0xff) {
      p++; // fill byte
      continue;
    }
    if (marker === SOS || marker === EOI) return undefined;
    const length = (bytes[p + 2]! << 8) | bytes[p + 3]!;
    if (length < 2) return undefined;
    if (isStartOfFrame(marker)) {
      if (p + 10 > bytes.length) return undefined;
      return {
        precision: bytes[p + 4]!,
        height: (bytes[p + 5]! << 8) | bytes[p + 6]!,
        width: (bytes[p + 7]! << 8) | bytes[p + 8]!,
        components: bytes[p + 9]!,
        process: marker & 0x0f,
      };
    }
    p += 2 + length;
  }
  return undefined;
}

/** SOF0..SOF15 except DHT (C4), JPG (C8) and DAC (CC), which share the range. */
function isStartOfFrame(marker: number): boolean {
  return marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
}

const RST0 = 0xd0;
const RST7 = 0xd7;
const TEM = 0x01;

/**
 * How many scans (SOS segments) the file holds, counting at most up to `limit + 1`: the marker
 * segments are walked and each scan's entropy-coded data skipped to the next marker (0xFF followed
 * by neither a stuffed 0x00, a fill 0xFF nor a restart marker). libjpeg decodes every scan over
 * the whole image however few bytes it carries, and warns but goes on when one repeats, so a file
 * of a few megabytes can hold a hundred thousand scans and take libjpeg a minute.
 *
 * libjpeg also reads past what this walk cannot follow (bytes that are no marker between two
 * segments, a segment length under 2), warning and going on to the next marker: a file with any
 * counts as over the limit, or one stray byte before each scan would hide them all. A restart
 * marker or TEM between segments has no length, for libjpeg as here.
 */
export function countScans(bytes: Uint8Array, limit: number): number {
  if (!isJpeg(bytes)) return 0;
  let scans = 0;
  let p = 2;
  while (p + 4 <= bytes.length) {
    if (bytes[p] !== 0xff) return limit + 1;
    const marker = bytes[p + 1]!;
    if (marker === 0xff) {
      p++;
      continue;
    }
    if (marker === EOI) return scans;
    if (marker === 0x00) return limit + 1;
    if (marker === TEM || (marker >= RST0 && marker <= RST7)) {
      p += 2;
      continue;
    }
    const length = (bytes[p + 2]! << 8) | bytes[p + 3]!;
    if (length < 2) return limit + 1;
    p += 2 + length;
    if (marker !== SOS) continue;
    if (++scans > limit) return scans;
    // The entropy-coded data runs to the next real marker.
    for (;;) {
      p = bytes.indexOf(0xff, p);
      if (p === -1 || p + 1 >= bytes.length) return scans;
      const next = bytes[p + 1]!;
      if (next === 0x00 || next === 0xff || (next >= RST0 && next <= RST7)) p++;
      else break;
    }
  }
  return scans;
}
