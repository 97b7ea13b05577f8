import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { type ReceivedCallback, recordCallback } from './review-fixture.js';

/** A GET of the platform's media: who asked (a browser's user agent, or Warden's hashing fetch). */
export interface MediaRequest {
  readonly path: string;
  readonly userAgent: string;
}

/**
 * A customer platform on loopback, as the console's browser tests need it: it serves the media
 * its posts reference (GET /media/<anything>: a real PNG made with sharp, so the browser loads it
 * straight from the platform as docs/console.md, "Media and moderator wellness" says) and records every callback it receives.
 */
export async function startPlatform(): Promise<{ url: string; received: ReceivedCallback[]; mediaRequests: MediaRequest[]; close(): Promise<void> }> {
  const png = await sharp({ create: { width: 320, height: 200, channels: 3, background: { r: 200, g: 40, b: 40 } } })
    .composite([{ input: { create: { width: 160, height: 100, channels: 3, background: { r: 20, g: 90, b: 220 } } }, left: 80, top: 50 }])
    .png()
    .toBuffer();
  const received: ReceivedCallback[] = [];
  const mediaRequests: MediaRequest[] = [];
  const record = recordCallback(received);
  const server: Server = createServer((req, res) => {
    if (req.method === 'GET' && req.url?.startsWith('/media/')) {
      mediaRequests.push({ path: req.url, userAgent: req.headers['user-agent'] ?? '' });
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length }).end(png);
      return;
    }
    record(req, res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, received, mediaRequests, close: () => new Promise<void>((r) => server.close(() => r())) };
}
