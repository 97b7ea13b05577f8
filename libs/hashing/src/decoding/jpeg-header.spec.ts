import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { isJpeg, readJpegFrame } from './jpeg-header.js';

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
