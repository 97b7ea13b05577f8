import { isReadable } from 'node:stream';
import fastifyCompress from '@fastify/compress';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** Answers smaller than this go as they are: compressing them saves less than a packet and costs a zlib pass. */
export const COMPRESSION_THRESHOLD_BYTES = 1024;

/**
 * Text worth compressing: JSON (the APIs, the OpenAPI document, the audit export's NDJSON),
 * JavaScript, CSS, HTML, YAML, XML and other text. Not images or other binaries, and not an
 * event stream (compression would hold its events back).
 */
const COMPRESSIBLE_TYPES =
  /^(?:text\/(?!event-stream)[\w.+-]+|application\/(?:[\w.-]+\+)?(?:json|x-ndjson|javascript|xml|yaml|x-yaml)|image\/svg\+xml)\s*(?:;|$)/i;

/**
 * Compresses answers of a compressible type and at least COMPRESSION_THRESHOLD_BYTES with brotli
 * or gzip, as the request's Accept-Encoding asks (@fastify/compress, in onSend: the headers
 * already set, the security headers too, stay). Answers that already carry a Content-Encoding
 * pass through: the console's assets, which @fastify/static sends from the copies compressed at
 * build time. Streams (the audit export) are compressed as they flow.
 *
 * Request bodies are not decompressed: the body limits and the JSON limits count the bytes as
 * they arrive, and a small compressed body could otherwise expand past them.
 *
 * An answer that would have been compressed had the client asked says Vary: Accept-Encoding even
 * when sent as it is (the plugin says it only on what it compresses), so that a shared cache
 * does not hand one client's encoding to another.
 *
 * Register before any route: the plugin attaches itself to routes as they are added.
 */
export async function installCompression(app: NestFastifyApplication): Promise<void> {
  await app.register(fastifyCompress as never, {
    global: true,
    globalDecompression: false,
    encodings: ['br', 'gzip'],
    threshold: COMPRESSION_THRESHOLD_BYTES,
    customTypes: COMPRESSIBLE_TYPES,
  });
  app
    .getHttpAdapter()
    .getInstance()
    .addHook('onSend', (_request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (err: null, payload: unknown) => void) => {
      if (wouldCompress(reply, payload)) varyOnAcceptEncoding(reply);
      done(null, payload);
    });
}

function wouldCompress(reply: FastifyReply, payload: unknown): boolean {
  if (payload === null || payload === undefined || reply.hasHeader('content-encoding')) return false;
  if (!COMPRESSIBLE_TYPES.test(String(reply.getHeader('content-type') ?? 'application/json'))) return false;
  if (typeof payload === 'string' || Buffer.isBuffer(payload)) return Buffer.byteLength(payload) >= COMPRESSION_THRESHOLD_BYTES;
  return isReadable(payload as NodeJS.ReadableStream) === true;
}

function varyOnAcceptEncoding(reply: FastifyReply): void {
  const vary = reply.getHeader('vary');
  const current = Array.isArray(vary) ? vary.join(', ') : vary === undefined ? '' : String(vary);
  if (/(?:^|,)\s*(?:accept-encoding|\*)\s*(?:,|$)/i.test(current)) return;
  reply.header('vary', current ? `${current}, accept-encoding` : 'accept-encoding');
}
