import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { notFound } from '#warden/kernel';
import { errorBody } from './error-body.js';

/**
 * What the console's page may do. Media comes straight from the customers' URLs (docs/console.md, "Media and moderator wellness"), so
 * images, video and audio may load from any web origin; everything else only from here (no
 * inline script or style: the console's blur steps are CSS classes).
 */
const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  'img-src https: http: data: blob:',
  'media-src https: http: blob:',
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'self'",
  "form-action 'self'",
].join('; ');

function pageHeaders(reply: FastifyReply): FastifyReply {
  return (
    reply
      .header('Content-Security-Policy', CONSOLE_CSP)
      .header('X-Content-Type-Options', 'nosniff')
      .header('X-Frame-Options', 'DENY')
      // Media URLs are often pre-signed: the console's address must not leak to media hosts.
      .header('Referrer-Policy', 'no-referrer')
  );
}

/**
 * Serves the review console (apps/console, built into `dir` by `npm run build`) at /console:
 * hashed assets with a long cache (compressed at build time), and the page itself for every other /console path so the
 * single-page app's own routes survive a reload. Without a build, /console says how to make one.
 */
export async function serveConsoleApp(app: NestFastifyApplication, dir: string | undefined): Promise<void> {
  const fastify = app.getHttpAdapter().getInstance();
  const indexFile = dir ? join(dir, 'index.html') : undefined;
  if (!dir || !indexFile || !existsSync(indexFile)) {
    const missing = (request: FastifyRequest, reply: FastifyReply) =>
      reply
        .status(404)
        .type('application/json')
        .send(errorBody(notFound('The console is not built on this server: run `npm run build` (it builds apps/console into dist/console)'), request.id));
    fastify.get('/console', missing);
    fastify.get('/console/*', missing);
    return;
  }
  // Read once: the page is a few hundred bytes and changes only with a new build (a restart).
  const page = readFileSync(indexFile);
  await app.register(fastifyStatic as never, {
    root: join(dir, 'assets'),
    prefix: '/console/assets/',
    decorateReply: false,
    immutable: true,
    maxAge: '365d',
    index: false,
    // The build writes a .br and a .gz beside each script and style sheet (apps/console/vite.config.ts):
    // sent as they are to a browser that accepts them, with Vary: Accept-Encoding on every answer.
    preCompressed: true,
    setHeaders: (reply: FastifyReply) => reply.header('X-Content-Type-Options', 'nosniff'),
  });
  const sendPage = (_request: FastifyRequest, reply: FastifyReply) =>
    pageHeaders(reply).header('Cache-Control', 'no-cache').type('text/html; charset=utf-8').send(page);
  fastify.get('/console', sendPage);
  fastify.get('/console/*', sendPage);
}
