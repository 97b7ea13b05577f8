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
