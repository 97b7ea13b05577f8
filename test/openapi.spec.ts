import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildActionCallbackBody } from '../libs/callbacks/src/domain/action-callback-body.js';
import { buildAppealCallbackBody } from '../libs/callbacks/src/domain/appeal-callback-body.js';
import { SPEC_TRAILING_SLASH_OPERATIONS } from '#warden/platform/http';
import { generateOpenApiDocument } from '../apps/server/src/openapi-document.js';

type Operation = {
  responses: Record<string, { content?: Record<string, { schema?: { $ref?: string } }> }>;
  security?: unknown[];
  parameters?: Array<{ name?: string; in?: string }>;
};

describe('OpenAPI document', () => {
  it('matches the committed docs/openapi.json (run `npm run openapi` after changing the API)', async () => {
    const generated = JSON.stringify(await generateOpenApiDocument(), null, 2) + '\n';
    const committed = readFileSync(new URL('../docs/openapi.json', import.meta.url), 'utf8');
    expect(committed).toBe(generated);
  });

  it('documents the error body for every error status and the API key on every customer route, the session on every console route', async () => {
    const doc = (await generateOpenApiDocument()) as unknown as { paths: Record<string, Record<string, Operation>> };
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        const statuses = Object.keys(op.responses);
        // Success is a 2xx; the SAML sign-in routes succeed with a redirect (to the IdP, to the console).
        const success = (s: string) => s.startsWith('2') || (path.startsWith('/saml/') && s === '302');
        expect(statuses.some(success), `${method} ${path} success`).toBe(true);
        // Every request's query string is checked before routing: one that is not valid UTF-8 is a 400 on any operation.
        expect(statuses, `${method} ${path}`).toContain('400');
        for (const status of statuses.filter((s) => Number(s) >= 400)) {
          expect(op.responses[status]!.content?.['application/json']?.schema?.$ref, `${method} ${path} ${status}`).toBe('#/components/schemas/ErrorBodyDto');
        }
        if (path.startsWith('/api/console/')) {
          // Console routes: the session cookie, or none for signing in.
          if (op.security !== undefined) expect(op.security, `${method} ${path} security`).toEqual([{ ConsoleSession: [] }]);
          for (const s of ['429', '500']) expect(statuses, `${method} ${path}`).toContain(s);
        } else if (path.startsWith('/api/')) {
          expect(op.security, `${method} ${path} security`).toEqual([{ ApiKey: [] }]);
          for (const s of ['401', '403', '429', '500']) expect(statuses, `${method} ${path}`).toContain(s);
        }
      }
    }
  });

  it('declares Idempotency-Key, and its 409 and 422, on every customer POST but the appeal (docs/api.md)', async () => {
    const doc = (await generateOpenApiDocument()) as unknown as { paths: Record<string, Record<string, Operation>> };
    const posts = Object.entries(doc.paths).filter(([path, item]) => path.startsWith('/api/v1/') && item['post'] !== undefined);
    // The appeal ignores the header: an appeal is recorded once per appealId however often it is sent.
    const keyed = posts.filter(([path]) => path !== '/api/v1/report/appeal');
    expect(keyed.map(([path]) => path)).toContain('/api/v1/gdpr/delete');
    for (const [path, item] of keyed) {
      const op = item['post']!;
      expect(
        op.parameters?.some((p) => p.in === 'header' && p.name === 'Idempotency-Key'),
        `POST ${path} Idempotency-Key`,
      ).toBe(true);
      for (const s of ['409', '422', '503']) expect(Object.keys(op.responses), `POST ${path}`).toContain(s);
    }
  });

  it("publishes every operation of the spec-path table under the spec's spelling, and none under another", async () => {
    const doc = (await generateOpenApiDocument()) as unknown as { paths: Record<string, Record<string, Operation>> };
    for (const { method, path } of SPEC_TRAILING_SLASH_OPERATIONS) {
      expect(doc.paths[path]?.[method], `${method} ${path}`).toBeDefined();
      expect(doc.paths[path.replace(/\/+$/, '')]?.[method], `${method} ${path} without its slash`).toBeUndefined();
    }
  });
});

/** What generated clients make of the document: names, groups, descriptions, examples, types. */
describe('OpenAPI document, for generated clients', () => {
  interface Response {
    description?: string;
    content?: Record<string, { schema?: Record<string, unknown>; example?: unknown }>;
  }
  interface Doc {
    servers?: Array<{ url: string; description?: string }>;
    tags?: Array<{ name: string; description?: string }>;
    paths: Record<string, Record<string, { operationId?: string; tags?: string[]; responses: Record<string, Response> }>>;
    components: { schemas: Record<string, unknown> };
  }
  let doc: Doc;
  beforeAll(async () => {
    doc = (await generateOpenApiDocument()) as unknown as Doc;
  });
  const operations = () =>
    Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ where: `${method.toUpperCase()} ${path}`, path, op })));

  it('names each operation as a client method would be named: camelCase, unique, console operations prefixed `console`', () => {
    const ids = operations().map(({ where, path, op }) => {
      // Nest's default, `<Controller>_<method>`, changes with every rename and reads as a class name.
      expect(op.operationId, where).toMatch(/^[a-z][a-zA-Z0-9]*$/);
      // The console's operations share the document (and a generated client) with the customer's.
      expect(op.operationId!.startsWith('console'), where).toBe(path.startsWith('/api/console/'));
      return op.operationId;
    });
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    expect(doc.paths['/api/v1/actions']?.['post']?.operationId).toBe('executeAction');
  });

  it('declares every tag its operations use, each with a description, and no tag that none uses', () => {
    const declared = new Map((doc.tags ?? []).map((t) => [t.name, t.description ?? '']));
    const used = new Set(
      operations().flatMap(({ where, op }) => {
        expect(op.tags?.length, `${where} has a tag`).toBeGreaterThan(0);
        return op.tags ?? [];
      }),
    );
    expect([...used].filter((t) => !declared.has(t))).toEqual([]);
    expect([...declared.keys()].filter((t) => !used.has(t))).toEqual([]);
    for (const [name, description] of declared) expect(description.length, `tag ${name}`).toBeGreaterThan(20);
  });

  it('names this deployment, WARDEN_PUBLIC_URL, as its server; the committed document the default', async () => {
    expect(doc.servers).toEqual([{ url: 'http://localhost:3000', description: expect.stringContaining('WARDEN_PUBLIC_URL') }]);
    const deployed = (await generateOpenApiDocument({ WARDEN_PUBLIC_URL: 'https://warden.acme.example' })) as unknown as Doc;
    expect(deployed.servers?.map((s) => s.url)).toEqual(['https://warden.acme.example']);
  });

  it('describes a status once: no paragraph of a response description twice', () => {
    for (const { where, op } of operations()) {
      for (const [status, response] of Object.entries(op.responses)) {
        // Nest joins the descriptions of two decorators for one status with a blank line.
        const paragraphs = (response.description ?? '').split('\n\n');
        expect(
          paragraphs.filter((p, i) => paragraphs.indexOf(p) !== i),
          `${where} ${status}`,
        ).toEqual([]);
      }
    }
  });

  it('describes every response, successes too', () => {
    for (const { where, op } of operations()) {
      for (const [status, response] of Object.entries(op.responses)) expect(response.description?.trim(), `${where} ${status}`).toBeTruthy();
    }
  });

  it('shows an example of the success answer of every /api/v1 operation that has a body', () => {
    for (const { where, op } of operations().filter(({ path }) => path.startsWith('/api/v1/'))) {
      for (const [status, response] of Object.entries(op.responses).filter(([s]) => s.startsWith('2'))) {
        for (const [type, media] of Object.entries(response.content ?? {})) {
          const example = media.example ?? media.schema?.['example'];
          expect(example, `${where} ${status} ${type}`).toBeDefined();
        }
      }
    }
  });

  it('describes the action and appeal decision callbacks (interface spec 6.2, 6.3) on the operations that lead to them, each body as Warden builds it', () => {
    const callbacksOf = (path: string) => Object.keys((doc.paths[path]?.['post'] as { callbacks?: Record<string, unknown> } | undefined)?.callbacks ?? {});
    for (const path of ['/api/v1/items/async/', '/api/v1/content/', '/api/v1/report', '/api/v1/actions'])
      expect(callbacksOf(path), path).toContain('actionCallback');
    expect(callbacksOf('/api/v1/report/appeal')).toEqual(['appealDecisionCallback']);

    // Every object the document describes closed: a field the builders add that the schema lacks fails.
    const closed = (node: unknown): unknown => {
      if (Array.isArray(node)) return node.map(closed);
      if (node === null || typeof node !== 'object') return node;
      const schema = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, closed(v)]));
      return 'properties' in schema && !('additionalProperties' in schema) ? { ...schema, additionalProperties: false } : schema;
    };
    const ajv = new Ajv({ strict: false, allErrors: true });
    ajv.addSchema({ $id: 'openapi.json', components: closed(doc.components) as object });
    const check = (schema: string, body: unknown) => {
      const validate = ajv.compile({ $ref: `openapi.json#/components/schemas/${schema}` });
      expect(validate(body) ? [] : validate.errors, `${schema}: ${JSON.stringify(body)}`).toEqual([]);
    };
    const item = { id: 'post-1', typeId: 'post', typeName: 'Post' };
    const creator = { id: 'u1', typeId: 'user' };
    const policies = [{ id: 'spam', name: 'Spam', penalty: 'LOW' }];
    const rules = [{ id: 'buy-now', name: 'Buy now' }];
    const base = { item, action: { id: 'remove' }, actionBody: { severity: 'high' }, creator, userStrikeCount: 3 };
    for (const body of [
      buildActionCallbackBody({ ...base, kind: 'rule', policies, rules }),
      buildActionCallbackBody({ ...base, kind: 'rule', policies: [], rules, creator: null, userStrikeCount: null }),
      buildActionCallbackBody({
        ...base,
        kind: 'decision',
        policies,
        actorEmail: 'mod@acme.example',
        actorNote: 'seen twice',
        parameters: { days: 3 },
        decisionReason: 'Spam',
        reportHistory: [{ reason: 'It is spam', reporter: creator }],
      }),
      buildActionCallbackBody({ ...base, kind: 'strike-threshold' }),
      buildActionCallbackBody({ ...base, kind: 'post-actions', policies, actorEmail: 'manager@acme.example', decisionReason: 'Cleanup' }),
    ])
      check('ActionCallbackBodyDto', body);
    for (const decision of ['ACCEPT', 'REJECT'] as const) {
      check(
        'AppealDecisionCallbackBodyDto',
        buildAppealCallbackBody({ appealId: 'a-1', item, appealedBy: creator, decision, appealBody: { team: 'appeals' } }),
      );
    }
  });

  it('types every object it publishes: no `{type: object}` without members, which clients read as an empty object', () => {
    const bare: string[] = [];
    const visit = (node: unknown, at: string) => {
      if (node === null || typeof node !== 'object') return;
      const schema = node as Record<string, unknown>;
      const typed = ['properties', 'additionalProperties', 'anyOf', 'oneOf', 'allOf', 'enum', '$ref'].some((k) => k in schema);
      if (schema['type'] === 'object' && !typed) bare.push(at);
      for (const [k, v] of Object.entries(schema)) visit(v, `${at}/${k}`);
    };
    visit(doc.components.schemas, '#/components/schemas');
    visit(doc.paths, '#/paths');
    expect(bare).toEqual([]);
  });
});
