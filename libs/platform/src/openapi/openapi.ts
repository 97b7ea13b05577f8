import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { ErrorBodyDto, ErrorItemDto } from '../http/error-body.js';
import { HOST_SESSION_COOKIE, SESSION_COOKIE, sessionCookieName } from '../auth/console-access.js';
import { REQUEST_ID_PATTERN } from '../http/request-id.js';
import type { FastifyInstance } from 'fastify';
import { DOCS_PATH, installDocsPageHeaders } from './docs-page-headers.js';
import { spellPathsAsTheSpec } from './spec-paths.js';
import { OPENAPI_JSON_PATH, serveOpenApiDocument } from './served-document.js';

export const API_KEY_SCHEME = 'ApiKey';
/** `GET /metrics`'s optional bearer token (WARDEN_METRICS_TOKEN). */
export const METRICS_TOKEN_SCHEME = 'MetricsToken';
/** The console's session cookie (set by a password or SAML sign-in). */
export const SESSION_SCHEME = 'ConsoleSession';
export const CONSOLE_TAG = 'console';

/**
 * Every tag an operation may carry, in the order Swagger UI and generated clients list them
 * (customer routes first), each with what its operations are for: generators turn tags into
 * classes or modules, and an undeclared tag gives them a name and nothing else.
 * test/openapi.spec.ts checks that the operations use these and only these.
 */
const TAGS: ReadonlyArray<readonly [name: string, description: string]> = [
  ['items', 'Submit items (content, users, threads) for rule evaluation, batched or one at a time, and read how the rules evaluated each version'],
  ['reports', "Submit users' reports and appeals: each becomes a review job for moderators"],
  ['catalog', "Read the organization's policies, actions and item types, as its configuration defines them"],
  ['enforcement', "Execute an action on an item, and read a user's moderation score"],
  ['callbacks', 'Follow the callbacks Warden sends (deliveries and their attempts) and fetch the public keys that verify their `Service-Signature`'],
  ['gdpr', "Erase a user's personal data (crypto-shredding) and follow the erasure"],
  ['organization', 'Which organization and API key a request authenticates as'],
  ['operations', 'Liveness, readiness and Prometheus metrics, for load balancers and monitoring (no API key)'],
  [CONSOLE_TAG, 'The review console: sign-in, the account, and access management (session cookie)'],
  ['sso', 'Per-organization SAML single sign-on: the IdP redirect, the assertion consumer service, SP metadata (public)'],
];

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

/**
 * What the HTTP layer does for every route, whatever its controller says: it reads and echoes a
 * request id (createHttpApp) and answers 429 with Retry-After (installRateLimit).
 */
const COMMON = {
  parameters: {
    'X-Request-Id': {
      in: 'header',
      name: 'X-Request-Id',
      required: false,
      description: 'Correlation id to reuse (1 to 128 of A-Z a-z 0-9 . _ : -); a new one is generated otherwise',
      schema: { type: 'string', pattern: REQUEST_ID_PATTERN.source },
    },
  },
  headers: {
    'X-Request-Id': {
      required: true,
      description: 'The request id: the one given, or the one generated; also `requestId` in error bodies',
      schema: { type: 'string' },
    },
    'Retry-After': {
      required: true,
      description: 'Whole seconds until the next request of this key (or client address) is allowed',
      schema: { type: 'integer', minimum: 1 },
    },
  },
} as const;

/**
 * The document for this deployment. `publicUrl` (WARDEN_PUBLIC_URL) is its one server, so that a
 * client generated from the served document, or Swagger UI's "Try it out", calls this deployment.
 *
 * Every operation names its `operationId` in `@ApiOperation`: generated clients name their
 * methods after it (`executeAction`), so it is camelCase, unique, and stays when a controller is
 * renamed; console operations start with `console`. test/openapi.spec.ts holds every operation to
 * that.
 */
export function buildOpenApiDocument(app: INestApplication, version: string, publicUrl: string): OpenAPIObject {
  const builder = new DocumentBuilder()
    .setTitle('Warden')
    .setDescription(
      'Content-moderation backend. Every `/api/v1/` route needs the `X-API-KEY` header and answers with or ' +
        'without a trailing slash (paths are published as docs/api.md writes them). Every error uses one ' +
        'body: `{"errors":[{status,type,title,detail?,pointer?,requestId?}]}`, also for an unknown path (404) and ' +
        'a method a path does not allow (405, with `Allow`), and what is refused before routing: headers over 16 KiB ' +
        '(431), a request not received in time (408), bytes that are not HTTP (400); every response carries `X-Request-Id`. ' +
        "The `/api/console/v1/` routes (tag `console`) are the review console's: they need the session cookie " +
        "a sign-in sets, and a mutating request also needs the session's CSRF token in `X-CSRF-Token` and, from " +
        'a browser, a same-origin `Origin`.',
    )
    .setVersion(version)
    .addServer(publicUrl, 'This deployment (WARDEN_PUBLIC_URL)')
    .addApiKey({ type: 'apiKey', name: 'X-API-KEY', in: 'header' }, API_KEY_SCHEME)
    .addBearerAuth(
      { type: 'http', scheme: 'bearer', description: '`GET /metrics` only, when the server sets WARDEN_METRICS_TOKEN (the token itself)' },
      METRICS_TOKEN_SCHEME,
    )
    // The name this deployment sets (the committed docs/openapi.json is an http:// one's).
    .addCookieAuth(
      sessionCookieName(publicUrl),
      {
        type: 'apiKey',
        in: 'cookie',
        name: sessionCookieName(publicUrl),
        description: `The console session: \`${HOST_SESSION_COOKIE}\` on a deployment with TLS, \`${SESSION_COOKIE}\` on one whose WARDEN_PUBLIC_URL is http://`,
      },
      SESSION_SCHEME,
    );
  for (const [name, description] of TAGS) builder.addTag(name, description);
  const config = builder.build();
  const document = SwaggerModule.createDocument(app, config, {
    extraModels: [ErrorBodyDto, ErrorItemDto],
    // Tags are the ones the code names (items, console, sso …), not one per controller class.
    autoTagControllers: false,
  });
  return sortKeys(withCommonParts(document)) as OpenAPIObject;
}

export const PAYLOAD_TOO_LARGE_DESCRIPTION = 'The request body exceeds the configured limit (`/errors/payload-too-large`)';

/** Every operation's 400 where its route lists none: its query string is read, and refused, before routing (http-app.ts). */
export const MALFORMED_QUERY_DESCRIPTION =
  "A query parameter (of any name, this operation's or not) is not valid percent-encoded UTF-8 (`/errors/invalid-user-input`, with a `pointer` to the parameter)";

/**
 * The request id parameter and the response headers on every operation; the spec's paths. Every
 * operation that takes a body can answer 413 (the body limit, WARDEN_PUBLIC_BODY_LIMIT_BYTES where
 * no credential is needed, the JSON limits), whether or not its route says so; and every one 400,
 * for a query string that is not valid percent-encoded UTF-8 (a generated client then has the
 * error body's type for it).
 */
function withCommonParts(document: OpenAPIObject): OpenAPIObject {
  const paths = spellPathsAsTheSpec(document.paths as Record<string, Record<string, unknown>>) as OpenAPIObject['paths'];
  for (const item of Object.values(paths)) {
    for (const [method, value] of Object.entries(item)) {
      if (!HTTP_METHODS.has(method)) continue;
      const operation = value as {
        parameters?: Array<{ name?: string; in?: string; $ref?: string }>;
        requestBody?: unknown;
        responses: Record<string, { headers?: Record<string, unknown>; description?: string; content?: unknown }>;
      };
      if (operation.requestBody !== undefined && operation.responses['413'] === undefined) {
        operation.responses['413'] = {
          description: PAYLOAD_TOO_LARGE_DESCRIPTION,
          content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBodyDto' } } },
        };
      }
      operation.responses['400'] ??= {
        description: MALFORMED_QUERY_DESCRIPTION,
        content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBodyDto' } } },
      };
      operation.parameters = [
        ...(operation.parameters ?? []).filter((p) => !(p.in === 'header' && p.name === 'X-Request-Id')),
        { $ref: '#/components/parameters/X-Request-Id' },
      ];
      for (const [status, response] of Object.entries(operation.responses)) {
        response.headers = {
          ...response.headers,
          'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' },
          ...(status === '429' ? { 'Retry-After': { $ref: '#/components/headers/Retry-After' } } : {}),
        };
      }
    }
  }
  return {
    ...document,
    paths,
    components: {
      ...document.components,
      parameters: { ...document.components?.parameters, ...COMMON.parameters },
      headers: { ...document.components?.headers, ...COMMON.headers },
    } as OpenAPIObject['components'],
  };
}

/**
 * The document at /openapi.json and /openapi.yaml, and Swagger UI at /docs. `document` is called
 * once, on the first request for the document: each format is serialized once and compressed once
 * per coding (served-document.ts). Swagger UI fetches /openapi.json as any client does, with its
 * ETag, rather than having the document written into its init script: @nestjs/swagger's script
 * held the whole document (722 KB), compressed again on every request; given an empty document
 * and the URL, Swagger UI downloads the document from the URL.
 */
export function serveOpenApi(app: INestApplication, document: () => OpenAPIObject): void {
  const fastify = app.getHttpAdapter().getInstance() as FastifyInstance;
  // Before the routes below (and the static files' plugin) are added, so the hook covers them.
  installDocsPageHeaders(fastify);
  serveOpenApiDocument(fastify, document);
  SwaggerModule.setup(DOCS_PATH.slice(1), app, {} as OpenAPIObject, {
    // /openapi.json and /openapi.yaml are served above, from bytes made once.
    raw: false,
    swaggerUrl: OPENAPI_JSON_PATH,
    // Without the top bar: its Swagger logo is an SVG holding a <style> element, which the page's
    // CSP would refuse (docs-page-headers.ts); all it had else was a link to swagger.io and the
    // URL field @nestjs/swagger already hides.
    swaggerOptions: { layout: 'BaseLayout' },
  });
}

/** Stable key order, so the committed document only changes when the API does. */
function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}
