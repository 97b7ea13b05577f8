import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlib, gzip } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { stringify as toYaml } from 'yaml';

/** The two forms the OpenAPI document is served in. */
export type DocumentFormat = 'json' | 'yaml';
/** The content codings a served document is sent in (those installCompression offers, and none). */
type Coding = 'br' | 'gzip' | 'identity';

/** Where the document is served as JSON (Swagger UI at /docs reads it there too). */
export const OPENAPI_JSON_PATH = '/openapi.json';

const FORMATS: Record<DocumentFormat, { readonly path: string; readonly contentType: string }> = {
  json: { path: OPENAPI_JSON_PATH, contentType: 'application/json; charset=utf-8' },
  yaml: { path: '/openapi.yaml', contentType: 'text/yaml' },
};

/** What serving the document costs: each is done once per format (and coding), whatever the number of requests. */
export interface DocumentWork {
  serialize(format: DocumentFormat, document: object): string;
  compress(coding: Exclude<Coding, 'identity'>, bytes: Buffer): Promise<Buffer>;
}

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

/**
 * Serializes with the packages the server already has: JSON, and YAML without anchors (a shared
 * object written out each time, as a client that knows no aliases reads it). Compresses at the
 * highest levels, in libuv's thread pool: done once, the event loop does not wait for it.
 */
export const DOCUMENT_WORK: DocumentWork = {
  serialize: (format, document) => (format === 'json' ? JSON.stringify(document) : toYaml(document, { aliasDuplicateObjects: false })),
  compress: (coding, bytes) =>
    coding === 'br'
      ? brotli(bytes, {
          params: {
            [zlib.BROTLI_PARAM_MODE]: zlib.BROTLI_MODE_TEXT,
            [zlib.BROTLI_PARAM_QUALITY]: zlib.BROTLI_MAX_QUALITY,
            [zlib.BROTLI_PARAM_SIZE_HINT]: bytes.length,
          },
        })
      : gzipped(bytes, { level: zlib.Z_BEST_COMPRESSION }),
};

/** One format's bytes, as sent in each coding, and their ETags. */
class ServedForm {
  private readonly encoded = new Map<Exclude<Coding, 'identity'>, Promise<Buffer>>();
  readonly bytes: Buffer;
  private readonly digest: string;

  constructor(
    text: string,
    private readonly work: DocumentWork,
  ) {
    this.bytes = Buffer.from(text, 'utf8');
    this.digest = createHash('sha256').update(this.bytes).digest('base64url');
  }

  /** A strong ETag per coding: the bytes differ, so must the tag (as the console's assets have). */
  etag(coding: Coding): string {
    return coding === 'identity' ? `"${this.digest}"` : `"${this.digest}-${coding}"`;
  }

  body(coding: Coding): Promise<Buffer> {
    if (coding === 'identity') return Promise.resolve(this.bytes);
    let body = this.encoded.get(coding);
    if (body === undefined) {
      body = this.work.compress(coding, this.bytes);
      this.encoded.set(coding, body);
      // A failure is not kept: the next request tries again.
      body.catch(() => this.encoded.delete(coding));
    }
    return body;
  }
}

/**
 * Serves the OpenAPI document at /openapi.json and /openapi.yaml from bytes made once: the
 * document is built on the first request for either (`document`, called once), each format
 * serialized on its first request, each compressed form made on the first request that accepts
 * it. Every answer has an ETag, and a request whose If-None-Match names it is a 304.
 * @nestjs/swagger's own routes serialized the 397 KB document on every request (a YAML dump took
 * about 70 ms of the event loop) and @fastify/compress compressed it again each time: eight
 * connections asking for /openapi.yaml held /health/live up to 800 ms (docs/operations.md,
 * "Compression"). These routes opt out of that plugin (`compress: false`): they send what they
 * already compressed, with Content-Encoding and Vary: Accept-Encoding.
 */
export function serveOpenApiDocument(fastify: FastifyInstance, document: () => object, work: DocumentWork = DOCUMENT_WORK): void {
  let built: object | undefined;
  const forms = new Map<DocumentFormat, ServedForm>();
  const formOf = (format: DocumentFormat): ServedForm => {
    let form = forms.get(format);
    if (form === undefined) {
      built ??= document();
      form = new ServedForm(work.serialize(format, built), work);
      forms.set(format, form);
    }
    return form;
  };
  for (const [format, { path, contentType }] of Object.entries(FORMATS) as Array<[DocumentFormat, (typeof FORMATS)[DocumentFormat]]>) {
    fastify.get(path, { compress: false }, async (request: FastifyRequest, reply: FastifyReply) => {
      const form = formOf(format);
      const coding = chooseCoding(request.headers['accept-encoding']);
      const etag = form.etag(coding);
      reply.header('Vary', 'accept-encoding').header('ETag', etag);
      if (matchesEtag(request.headers['if-none-match'], etag)) return reply.code(304).send();
      const body = await form.body(coding);
      if (coding !== 'identity') reply.header('Content-Encoding', coding);
      return reply.type(contentType).send(body);
    });
  }
}

/**
 * The coding to send for an Accept-Encoding: the accepted one of the highest weight, brotli before
 * gzip at equal weights (the order installCompression offers them), `*` standing for any not
 * named; none accepted (or no header), the bytes as they are.
 */
export function chooseCoding(header: string | string[] | undefined): Coding {
  const weights = new Map<string, number>();
  for (const part of (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',')) {
    const [name, ...params] = part.split(';').map((p) => p.trim().toLowerCase());
    if (!name) continue;
    const q = params.find((p) => p.startsWith('q='));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    weights.set(name, Number.isFinite(weight) ? weight : 0);
  }
  let chosen: Coding = 'identity';
  let best = 0;
  for (const coding of ['br', 'gzip'] as const) {
    const weight = weights.get(coding) ?? weights.get('*') ?? 0;
    if (weight > best) [chosen, best] = [coding, weight];
  }
  return chosen;
}

/** Whether If-None-Match names this ETag (or is `*`), compared weakly as RFC 9110 says for it. */
function matchesEtag(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t.replace(/^W\//, '') === etag;
  });
}
