import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { countScans, isJpeg, readJpegFrame } from './jpeg-header.js';

/**
 * `jpeg` with its first scan header repeated `times` times, each with one byte of data, as a scan
 * bomb has it; each preceded by `before` (bytes libjpeg reads past on its way to the scan).
 */
function withRepeatedFirstScan(jpeg: Buffer, times: number, before: Buffer = Buffer.alloc(0)): Buffer {
  let p = 2;
  while (jpeg[p + 1] !== 0xda) p += 2 + jpeg.readUInt16BE(p + 2);
  const scan = Buffer.concat([before, jpeg.subarray(p, p + 2 + jpeg.readUInt16BE(p + 2)), Buffer.from([0])]);
  return Buffer.concat([jpeg.subarray(0, p), ...Array.from({ length: times }, () => scan), Buffer.from([0xff, 0xd9])]);
}

const W = 70;
const H = 45;
const pixels = Buffer.from(Array.from({ length: W * H * 3 }, (_, i) => (i * 37) & 255));
const image = () => sharp(pixels, { raw: { width: W, height: H, channels: 3 } });

describe('readJpegFrame', () => {
  it('reads size, components, precision and process of baseline, progressive and greyscale files', async () => {
    expect(readJpegFrame(await image().jpeg().toBuffer())).toEqual({ width: W, height: H, components: 3, precision: 8, process: 0 });
    expect(readJpegFrame(await image().jpeg({ progressive: true }).toBuffer())).toMatchObject({ width: W, process: 2 });
    const grey = await image().toColourspace('b-w').jpeg().toBuffer();
    expect(readJpegFrame(grey)).toMatchObject({ components: 1, height: H });
  });

  it('finds the frame after EXIF and ICC segments', async () => {
    const tagged = await image().withMetadata({ orientation: 6 }).jpeg().toBuffer();
    expect(readJpegFrame(tagged)).toMatchObject({ width: W, height: H });
  });

  it('gives undefined for other formats and for files cut before the frame header', async () => {
    const png = await image().png().toBuffer();
    const jpeg = await image().jpeg().toBuffer();
    expect(isJpeg(png)).toBe(false);
    expect(readJpegFrame(png)).toBeUndefined();
    expect(readJpegFrame(jpeg.subarray(0, 30))).toBeUndefined();
    expect(readJpegFrame(Buffer.from([0xff, 0xd8, 0xff, 0xda, 0, 2]))).toBeUndefined();
    expect(readJpegFrame(Buffer.alloc(0))).toBeUndefined();
  });
});

describe('countScans', () => {
  it('counts the scans of baseline and progressive files, skipping their entropy-coded data', async () => {
    expect(countScans(await image().jpeg().toBuffer(), 100)).toBe(1);
    const progressive = await image().jpeg({ progressive: true }).toBuffer();
    const scans = countScans(progressive, 100);
    expect(scans).toBeGreaterThan(1);
    expect(scans).toBeLessThanOrEqual(12);
    expect(countScans(withRepeatedFirstScan(progressive, 500), 1000)).toBe(500);
  });

  it('stops counting past the limit, and gives 0 for what is not a JPEG', async () => {
    const bomb = withRepeatedFirstScan(await image().jpeg({ progressive: true }).toBuffer(), 5000);
    expect(countScans(bomb, 100)).toBe(101);
    expect(countScans(await image().png().toBuffer(), 100)).toBe(0);
    expect(countScans(Buffer.alloc(0), 100)).toBe(0);
  });

  it('counts the scans libjpeg reads past stray bytes and restart markers between segments', async () => {
    const progressive = await image().jpeg({ progressive: true }).toBuffer();
    // libjpeg skips bytes that are no marker (a warning) and decodes the scan after them: a file
    // that has them counts as over the limit (left to sharp).
    expect(countScans(withRepeatedFirstScan(progressive, 5000, Buffer.from([0])), 100)).toBe(101);
    expect(countScans(withRepeatedFirstScan(progressive, 5000, Buffer.from([0xff, 0xfe, 0, 2, 0])), 100)).toBe(101);
    expect(countScans(withRepeatedFirstScan(progressive, 5000, Buffer.from([0xff, 0, 0xff, 0])), 100)).toBe(101);
    // A restart marker has no length: read as one, the next scan's FF DA would skip 65,500 bytes of scans.
    expect(countScans(withRepeatedFirstScan(progressive, 5000, Buffer.from([0xff, 0xd0])), 100)).toBe(101);
    expect(countScans(withRepeatedFirstScan(progressive, 50, Buffer.from([0xff, 0xd0])), 100)).toBe(50);
    // A length under 2 moves libjpeg past the length only.
    expect(countScans(withRepeatedFirstScan(progressive, 5000, Buffer.from([0xff, 0xfe, 0, 0])), 100)).toBe(101);
  });
});
