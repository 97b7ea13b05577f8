import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule, { type FormatsPlugin } from 'ajv-formats';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallEveryOperation, Exchange } from './fixtures/openapi-client/exchange.js';
import { type Receiver, startReceiver } from './support/http-receiver.js';
import { sendOverLimit } from './support/over-limit.js';
import { consoleUserCommand, freshDataDir, runCli, runCliBatch, type RunningWarden, startWarden, testEnv } from './support/warden-process.js';

const ROOT = join(import.meta.dirname, '..');
const CLIENT_DIR = join(ROOT, 'test/fixtures/openapi-client');
const CLIENT = join(CLIENT_DIR, 'every-operation.client.ts');
/** Where the client imports the generated types from; served from memory, never written. */
const GENERATED_TYPES = join(CLIENT_DIR, 'openapi-types.ts');
const ORG_CONFIG = join(CLIENT_DIR, 'openapi-org.yaml');
const MAX_ITEMS = 1000; // the server's default, which the document publishes
const BODY_LIMIT = 1024 * 1024;

// CommonJS under Node's ESM: the plugin is the module itself.
const addFormats = ((addFormatsModule as unknown as { default?: FormatsPlugin }).default ?? addFormatsModule) as FormatsPlugin;

type Schema = Record<string, unknown>;
interface Operation {
  parameters?: Array<Schema>;
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { content?: Record<string, { schema: Schema }>; headers?: Record<string, Schema> }>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: Record<string, Record<string, Schema>>;
}

const document = JSON.parse(readFileSync(join(ROOT, 'docs/openapi.json'), 'utf8')) as Document;

/** The TypeScript compiler's verdict on the client, with the generated types in memory. */
function typeCheck(entry: string, inMemory: Record<string, string>): string[] {
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
    types: [],
    strict: true,
    noUnusedLocals: true,
    noEmit: true,
    skipLibCheck: true,
  };
  const host = ts.createCompilerHost(options);
  const { fileExists, readFile, getSourceFile } = host;
  host.fileExists = (file) => file in inMemory || fileExists.call(host, file);
  host.readFile = (file) => inMemory[file] ?? readFile.call(host, file);
  host.getSourceFile = (file, language, ...rest) =>
    file in inMemory ? ts.createSourceFile(file, inMemory[file]!, language) : getSourceFile.call(host, file, language, ...rest);
  const program = ts.createProgram([entry], options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : undefined;
    const file = d.file ? d.file.fileName.replace(ROOT + '/', '') : '';
    return `${file}${where ? `:${where.line + 1}` : ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
  });
}

/**
 * The document's schemas, with every object closed (`additionalProperties: false` where it says
 * nothing), so that a field the server sends and the document does not name is caught too.
 */
function closed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(closed);
  if (value === null || typeof value !== 'object') return value;
  const node = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, closed(v)]));
  if ('properties' in node && !('additionalProperties' in node)) node['additionalProperties'] = false;
  return node;
}

const ajv = new Ajv({ strict: false, allErrors: true });
addFormats(ajv);
// OpenAPI's `password` format is a hint to user interfaces (mask the field), not a constraint.
ajv.addFormat('password', true);
const components = closed(document.components) as Document['components'];
const compiled = new Map<Schema, ValidateFunction>();
/** A validator for a schema of the document; its `#/components/...` references resolve. */
function validatorOf(schema: Schema): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile({ ...(closed(schema) as Schema), components });
    compiled.set(schema, validate);
  }
  return validate;
}
const problemsOf = (validate: ValidateFunction, value: unknown): string[] =>
  validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);

const resolve = (node: Schema): Schema => {
  const ref = node['$ref'];
  if (typeof ref !== 'string') return node;
  const [, kind, name] = ref.split('/').slice(1);
  return document.components[kind!]![name!]!;
};

const mediaType = (contentType: string | null) => contentType?.split(';')[0]!.trim().toLowerCase() ?? null;

/** A query value as the document types it. */
function typed(value: string, schema: Schema): unknown {
  return (schema['type'] === 'integer' || schema['type'] === 'number') && /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value;
}

/** Everything in one exchange that the document contradicts. */
function contradictions(x: Exchange): string[] {
  const where = `${x.method.toUpperCase()} ${x.path} → ${x.status}`;
  const operation = document.paths[x.path]?.[x.method];
  if (!operation) return [`${where}: no such operation in the document`];
  const response = operation.responses[String(x.status)];
  if (!response) return [`${where}: status not documented (${x.body.slice(0, 200)})`];
  const found: string[] = [];

  const essence = mediaType(x.contentType);
  if (response.content === undefined) {
    if (x.body !== '') found.push(`${where}: a body the document does not have`);
  } else if (essence === null || !(essence in response.content)) {
    found.push(`${where}: content type ${x.contentType} is not one of ${Object.keys(response.content).join(', ')}`);
  } else {
    const body = essence === 'application/json' ? JSON.parse(x.body) : x.body;
    found.push(...problemsOf(validatorOf(response.content[essence]!.schema), body).map((p) => `${where}: body ${p}`));
  }

  for (const [name, reference] of Object.entries(response.headers ?? {})) {
    const header = resolve(reference);
    const value = x.headers[name.toLowerCase()];
    if (value === undefined) {
      if (header['required'] === true) found.push(`${where}: header ${name} missing`);
      continue;
    }
    const schema = header['schema'] as Schema;
    found.push(...problemsOf(validatorOf(schema), typed(value, schema)).map((p) => `${where}: header ${name} ${p}`));
  }

  // The request, as the document describes it: a 2xx request must fit; this client's 400s each
  // break a rule the document states (shape, lengths, counts, enums, ranges), so it must not.
  const requestProblems: string[] = [];
  const query = (operation.parameters ?? []).map(resolve).filter((p) => p['in'] === 'query');
  for (const parameter of query) {
    const value = x.query[parameter['name'] as string];
    if (value === undefined) {
      if (parameter['required'] === true) requestProblems.push(`query ${String(parameter['name'])} missing`);
      continue;
    }
    const schema = parameter['schema'] as Schema;
    requestProblems.push(...problemsOf(validatorOf(schema), typed(value, schema)).map((p) => `query ${String(parameter['name'])} ${p}`));
  }
  const requestSchema = operation.requestBody?.content['application/json']?.schema;
  if (requestSchema && mediaType(x.requestContentType) === 'application/json') {
    requestProblems.push(...problemsOf(validatorOf(requestSchema), JSON.parse(x.requestBody)).map((p) => `body ${p}`));
  }
  if (x.status < 300 && requestProblems.length > 0) found.push(`${where}: the document refuses the request: ${requestProblems.join('; ')}`);
  if (x.status === 400 && requestProblems.length === 0) {
    found.push(`${where}: the document accepts a request the server refused: ${x.query ? JSON.stringify(x.query) : ''} ${x.requestBody.slice(0, 200)}`);
  }
  return found;
}

/** Revokes through the CLI the key whose `api-key create` printed `created` (the key id on its first line). */
async function revoke(env: NodeJS.ProcessEnv, created: readonly string[]): Promise<void> {
  const keyId = /Created API key (\S+) /.exec(created.join('\n'))?.[1];
  if (keyId === undefined) throw new Error(`api-key create printed no key id: ${created.join('\n')}`);
  const revoked = await runCli(['api-key', 'revoke', '--org', 'typed', '--key', keyId], env);
  if (revoked.code !== 0) throw new Error(`api-key revoke: ${revoked.stderr}`);
}

/**
 * The operations a generated client calls. The `/saml/` routes are a browser's and an IdP's (a
 * redirect, a form post, XML), not a JSON client's: test/e2e/saml-sso.e2e.spec.ts covers them.
 */
const operationsOf = (doc: Document) =>
  Object.entries(doc.paths)
    .filter(([path]) => !path.startsWith('/saml/'))
    .flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`));

/**
 * The generated client's fetch: a body over the server's limit goes the way a careful client sends
 * it (`Expect: 100-continue`): the server answers 413 from the Content-Length and closes, and a
 * body written regardless meets a reset connection (EPIPE) before the answer is read.
 */
function fetchHoldingBack(bodyLimitBytes: number) {
  return async (request: Request): Promise<Response> => {
    const body = Buffer.from(await request.clone().arrayBuffer());
    if (body.length <= bodyLimitBytes) return fetch(request);
    const url = new URL(request.url);
    const sent = await sendOverLimit(url.origin, request.method, `${url.pathname}${url.search}`, Object.fromEntries(request.headers), body);
    return new Response(sent.responseText, { status: sent.status, headers: sent.headers });
  };
}

describe('the OpenAPI document, as a client generated from it sees the server', () => {
  it('types a client that calls every operation with the paths the interface spec writes', async () => {
    const generated = astToString(await openapiTS(document as never));
    expect(typeCheck(CLIENT, { [GENERATED_TYPES]: generated })).toEqual([]);
    // openapi-typescript's type for an object it knows nothing of: no field can be read or set.
    // Only the document's absent parts (`webhooks`, `$defs`) may be one.
    const empty = generated.split('\n').filter((line) => line.includes('Record<string, never>'));
    expect(empty.filter((line) => !/^export type (webhooks|\$defs) = Record<string, never>;$/.test(line))).toEqual([]);
  });

  it("names every operation but the console's and SAML's in the client by its operationId", async () => {
    // Imported by a computed name: the client compiles only against the generated types.
    const { namedOperations } = (await import(CLIENT)) as { namedOperations: Record<string, { method: string; path: string }> };
    const inDocument = Object.entries(document.paths)
      .filter(([path]) => !path.startsWith('/api/console/') && !path.startsWith('/saml/'))
      .flatMap(([path, item]) => Object.entries(item).map(([method, op]) => [(op as { operationId?: string }).operationId, { method, path }]));
    expect(Object.fromEntries(inDocument)).toEqual(namedOperations);
  });

  it('publishes examples that fit their schemas', () => {
    const misfits: string[] = [];
    const visit = (node: unknown, at: string) => {
      if (node === null || typeof node !== 'object') return;
      if (!Array.isArray(node) && 'example' in node && ('type' in node || '$ref' in node || 'anyOf' in node)) {
        const { example, ...schema } = node as Schema;
        misfits.push(...problemsOf(validatorOf(schema), example).map((p) => `${at}: ${p}`));
      }
      // A response's example (a media type object's), against its schema with every object closed.
      if (!Array.isArray(node) && 'example' in node && 'schema' in node) {
        const { example, schema } = node as { example: unknown; schema: Schema };
        misfits.push(...problemsOf(validatorOf(schema), example).map((p) => `${at}: ${p}`));
      }
      for (const [k, v] of Object.entries(node)) visit(v, `${at}/${k}`);
    };
    visit(document, '');
    expect(misfits).toEqual([]);
  });

  describe('against a running server', () => {
    const dataDir = freshDataDir();
    let receiver: Receiver;
    let warden: RunningWarden;
    let exchanges: Exchange[];

    beforeAll(async () => {
      receiver = await startReceiver();
      const env = testEnv(dataDir, {
        RECEIVER_URL: receiver.url,
        WARDEN_BODY_LIMIT_BYTES: String(BODY_LIMIT),
        // A burst that the run's own requests stay under, and a refill slow enough to run out.
        WARDEN_RATE_LIMIT_PER_SECOND: '1',
        WARDEN_RATE_LIMIT_BURST: '100',
      });
      const consoleAdmin = { email: 'admin@typed.example', password: 'correct horse battery staple' };
      // One CLI process for the set-up (test/support/warden-process.ts, runCliBatch), but for the
      // revocation: it names the key id the batch printed.
      const made = await runCliBatch(env, [
        ['apply', ORG_CONFIG],
        ['api-key', 'create', '--org', 'typed'],
        ['api-key', 'create', '--org', 'typed'],
        ['api-key', 'create', '--org', 'typed'],
        consoleUserCommand('typed', consoleAdmin.email, consoleAdmin.password, ['ADMIN']),
      ]);
      const [apiKey, throttledKey, revokedKey] = [made[1]!.at(-1)!, made[2]!.at(-1)!, made[3]!.at(-1)!];
      // The server starts while the CLI revokes the key (the store exists once the batch is done).
      const started = startWarden(env);
      try {
        await revoke(env, made[3]!);
      } finally {
        warden = await started;
      }
      // Imported by a computed name: the client compiles only against the generated types.
      const { callEveryOperation } = (await import(CLIENT)) as { callEveryOperation: CallEveryOperation };
      exchanges = await callEveryOperation({
        baseUrl: warden.url,
        apiKey,
        throttledKey,
        revokedKey,
        consoleAdmin,
        maxItems: MAX_ITEMS,
        bodyLimitBytes: BODY_LIMIT,
        fetch: fetchHoldingBack(BODY_LIMIT),
      });
    }, 120_000);
    afterAll(async () => {
      await warden?.stop();
      await receiver?.close();
    });

    it('calls every operation of the document, each with a success', () => {
      const succeeded = new Set(exchanges.filter((x) => x.status < 300).map((x) => `${x.method.toUpperCase()} ${x.path}`));
      expect(operationsOf(document).filter((op) => !succeeded.has(op))).toEqual([]);
    });

    it('gets the errors the document lists: 400, 401, 403, 413, 415 and 429', () => {
      const statuses = new Set(exchanges.map((x) => x.status));
      for (const status of [400, 401, 403, 413, 415, 429]) expect(statuses, String(status)).toContain(status);
    });

    it('answers every request (success and error) with the status, content type, headers and body the document gives', () => {
      expect(exchanges.flatMap(contradictions)).toEqual([]);
    });
  });
});
