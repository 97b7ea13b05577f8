import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { type DynamicModule, Logger as NestLogger, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import fastifyCookie from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { WardenConfig } from '../config/warden-config.js';
import { AccessLog } from '../observability/access-log.js';
import { Metrics } from '../observability/metrics.js';
import { PinoNestLogger } from '../observability/logger.js';
import { capConnectionsPerClient } from './connection-cap.js';
import { buildOpenApiDocument, serveOpenApi } from '../openapi/openapi.js';
import { invalidInput, unavailable } from '#warden/kernel';
import { errorBody } from './error-body.js';
import { serveConsoleApp } from './console-app.js';
import { installCompression } from './compression.js';
import { jsonBodyLimitsOf } from './json-body-limits.js';
import { installJsonBodyParser } from './json-body-parser.js';
import { applyPublicBodyLimit } from './public-body-limit.js';
import { installEarlyApiKeyCheck } from './early-api-key-check.js';
import { installEarlySessionCheck } from './early-session-check.js';
import { API_KEY_AUTHENTICATOR, type ApiKeyAuthenticator } from '../auth/principal.js';
import { CONSOLE_AUTHENTICATOR, type ConsoleAuthenticator, sessionCookieName } from '../auth/console-access.js';
import { installRateLimit, openRateLimitStores, type SharedRateLimitStores } from './rate-limit.js';
import { malformedQueryError, parseQueryString } from './query-string.js';
import { REQUEST_ID_PATTERN } from './request-id.js';
import { RouteTable } from './route-table.js';
import { replyWithError, sendError } from './send-error.js';
import { MAX_PARAM_LENGTH } from './to-domain-error.js';
import { answerClientError } from './client-error-answer.js';
import { createValidationPipe } from './validation.js';

/**
 * The HTTP application: Fastify under Nest, with request ids, per-key rate limits, metrics,
 * JSON-only bodies and the error body (docs/api.md, "Errors") for everything that goes wrong.
 */
/** What a read-only server answers (WARDEN_READ_ONLY). */
const READ_ONLY_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** Signing in to and out of the console stays possible on a read-only server: an auditor must get in. */
const CONSOLE_SESSION_PATH = '/api/console/v1/session';
/** The console's JSON routes: personal data and the session's CSRF token, never to be cached. */
const CONSOLE_API_PREFIX = '/api/console/';

const drainers = new WeakMap<object, () => void>();

/**
 * Answers every request from now on with 503 and `Connection: close`, as Fastify's close does
 * once it begins (docs/operations.md, "Shutdown"). Nest's close runs the application's shutdown
 * hooks first (a worker's evaluations under way end there, up to a classifier's 30 s): a process
 * that runs them on its event loop would take new requests all that time without this.
 */
export function startDraining(app: object): void {
  drainers.get(app)?.();
}

export async function createHttpApp(
  rootModule: Type | DynamicModule,
  config: WardenConfig,
  logger: Logger,
  version: string,
  options: {
    /** The production profile's shared rate-limit store (storage's `sharedRateLimitStores`, on MongoDB). */
    sharedRateLimits?: SharedRateLimitStores;
    /** The built review console (dist/console), served at /console; absent: /console says it is not built. */
    consoleDir?: string;
    /**
     * The console's pages and the OpenAPI document (/console, /openapi.json, /docs): false for a
     * worker, which serves no API and so only /health/* and /metrics (docs/operations.md, "Roles").
     */
    pages?: boolean;
  } = {},
): Promise<NestFastifyApplication> {
  const frameworkLogger = new NestLogger('http');
  const accessLog = new AccessLog();
  const adapter = new FastifyAdapter({
    loggerInstance: logger.child({ component: 'http' }),
    // One access-log line per request, in place of Fastify's two (observability/access-log.ts).
    logController: accessLog,
    bodyLimit: config.bodyLimitBytes,
    // The query string as Fastify reads it, but with what is not valid percent-encoded UTF-8 set
    // aside rather than read as U+FFFD (refused in onRequest below, as such a path is refused).
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH, querystringParser: parseQueryString },
    // Only the operator's proxies may say who the client is: otherwise any client could pick the
    // address the sign-in throttle and the rate limits count it under.
    trustProxy: config.trustedProxies.length > 0 ? [...config.trustedProxies] : false,
    // The router answers a path it cannot decode, or a parameter past maxParamLength, before any
    // hook runs and in Fastify's own shape; these get the error body (docs/api.md, "Errors") and the request id too.
    frameworkErrors: (error: Error, request: FastifyRequest, reply: FastifyReply) => {
      reply.header('X-Request-Id', request.id);
      // Fastify does not follow these answers to their end (no onResponse, no "completed"): the
      // access log does, so they have their line too.
      reply.raw.once('finish', () => accessLog.requestCompleted(null, request, reply));
      sendError(error, request, reply, config.bodyLimitBytes, frameworkLogger);
    },
    genReqId: (req: IncomingMessage) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID_PATTERN.test(given) ? given : randomUUID();
    },
    // Requests that reach a draining server still get 503, but with the error body (docs/api.md, "Errors"; below):
    // Fastify's own has another shape and no request id.
    return503OnClosing: false,
    // What Node's parser refuses before there is a request (headers too large, not HTTP): the error body too.
    clientErrorHandler: answerClientError,
    // On shutdown, idle keep-alive connections close at once; in-flight requests still finish.
    forceCloseConnections: 'idle',
    // A request must arrive whole within this (Node answers 408 and closes the connection): a
    // client that sends headers and then a trickle, or nothing, held its connection for good.
    // Node looks for such requests every connectionsCheckingInterval (30 s unless set), and not at
    // all while its headers timeout (60 s unless set) is longer than the request's.
    requestTimeout: config.requestTimeoutMs,
    http: {
      requestTimeout: config.requestTimeoutMs,
      headersTimeout: Math.min(60_000, config.requestTimeoutMs),
      connectionsCheckingInterval: Math.min(5_000, config.requestTimeoutMs),
    },
  });
  const app = await NestFactory.create<NestFastifyApplication>(rootModule, adapter, {
    logger: new PinoNestLogger(logger),
    abortOnError: false,
    // Fastify's own JSON parser only: Nest's would also accept url-encoded forms.
    bodyParser: false,
  });
  const fastify = app.getHttpAdapter().getInstance();
  capConnectionsPerClient(fastify.server, config.maxConnectionsPerClient, config.trustedProxies, logger.child({ component: 'http' }));
  const routes = app.get(RouteTable);
  const metrics = app.get(Metrics);

  fastify.addHook('onRoute', (route) => {
    routes.add(route.method, route.url);
    applyPublicBodyLimit(route, config.publicBodyLimitBytes);
  });
  // Only JSON bodies: anything else is a 415 rather than a string that fails validation later.
  fastify.removeContentTypeParser('text/plain');
  installJsonBodyParser(fastify, jsonBodyLimitsOf(config));
  // The console's session cookie (read by the console guard, set by sign-in).
  await app.register(fastifyCookie as never);
  // Before any route is added (the console's, the controllers' at init, the OpenAPI document's).
  await installCompression(app);

  let draining = false;
  fastify.addHook('preClose', async () => {
    draining = true;
  });
  drainers.set(app, () => (draining = true));
  fastify.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    reply.header('X-Request-Id', request.id);
    // No answer is to be read as another type than it says (an error body as HTML, say).
    reply.header('X-Content-Type-Options', 'nosniff');
    // A browser's cache would keep a moderator's views of people's data, and the CSRF token, after
    // sign-out: readable by the next user of the machine (a route may still say otherwise).
    if (request.url.startsWith(CONSOLE_API_PREFIX)) reply.header('Cache-Control', 'no-store');
    (request as FastifyRequest & { startedAt?: bigint }).startedAt = process.hrtime.bigint();
    // Pipelined or keep-alive requests that arrive after close began: the balancer retries elsewhere.
    if (draining) {
      return reply
        .status(503)
        .header('Connection', 'close')
        .type('application/json')
        .send(errorBody(unavailable('The server is shutting down; retry the request'), request.id));
    }
    // Before the rate limit and authentication, as a path that is not UTF-8 is: the request is
    // refused whoever sends it, and nothing reads a parameter the client did not send.
    const malformedQuery = malformedQueryError(request.query);
    if (malformedQuery) {
      return replyWithError(reply, request, malformedQuery);
    }
    // Request bodies are never decompressed (docs/operations.md, "Compression"): one sent encoded
    // is refused as it comes, so that the body and JSON limits always count the bytes received.
    const encoding = request.headers['content-encoding'];
    if (encoding !== undefined && !/^\s*identity\s*$/i.test(String(encoding))) {
      const refused = invalidInput({
        title: 'Encoded request body',
        detail: 'Request bodies are not decompressed: send the body without Content-Encoding',
        pointer: '',
      });
      return reply.status(400).header('Connection', 'close').type('application/json').send(errorBody(refused, request.id));
    }
    if (config.readOnly && !READ_ONLY_METHODS.has(request.method) && !request.url.startsWith(CONSOLE_SESSION_PATH)) {
      return reply
        .status(503)
        .type('application/json')
        .send(errorBody(unavailable('This server is read-only (WARDEN_READ_ONLY, a replayed data directory): nothing can be changed'), request.id));
    }
  });

  installRateLimit(
    fastify,
    await openRateLimitStores(config, options.sharedRateLimits),
    logger.child({ component: 'rate-limit' }),
    sessionCookieName(config.publicUrl),
    { burst: config.rateLimitBurst, bodyLimitBytes: config.bodyLimitBytes },
  );
  // After the rate limit (onRequest), before the body is read. An app without the identity
  // module (a test's probe) has no authenticator: its guard has none either.
  const authenticator = providerOrNone<ApiKeyAuthenticator>(app, API_KEY_AUTHENTICATOR);
  if (authenticator) installEarlyApiKeyCheck(fastify, authenticator);
  const consoleAuthenticator = providerOrNone<ConsoleAuthenticator>(app, CONSOLE_AUTHENTICATOR);
  if (consoleAuthenticator) installEarlySessionCheck(fastify, consoleAuthenticator, sessionCookieName(config.publicUrl));

  fastify.addHook('onResponse', async (request: FastifyRequest, reply: FastifyReply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const started = (request as FastifyRequest & { startedAt?: bigint }).startedAt;
    metrics.httpRequests.inc({ method: request.method, route, status: String(reply.statusCode) });
    if (started !== undefined) {
      metrics.httpDuration.observe({ method: request.method, route }, Number(process.hrtime.bigint() - started) / 1e9);
    }
  });

  if (options.pages !== false) await serveConsoleApp(app, options.consoleDir);
  app.useGlobalPipes(createValidationPipe());
  // Built when /openapi.json or /openapi.yaml is first asked for (Swagger UI at /docs reads the first), not at every start-up.
  if (options.pages !== false) serveOpenApi(app, () => buildOpenApiDocument(app, version, config.publicUrl));
  await app.init();
  return app;
}

function providerOrNone<T>(app: NestFastifyApplication, token: symbol): T | undefined {
  try {
    return app.get<T>(token, { strict: false });
  } catch {
    return undefined;
  }
}
