import fastifyCompress from '@fastify/compress';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';

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
}
