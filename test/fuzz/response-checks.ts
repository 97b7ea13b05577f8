import { Ajv, type ValidateFunction } from 'ajv';
import type { OpenApiDocument, SchemaObject } from './schema-arbitraries.js';

/** A request as sent and its response as received. */
export interface Exchange {
  readonly token: string;
  readonly path: string;
  /** The key its operation's request schema is registered under in RequestSchemas (default: `path`). */
  readonly operation?: string;
  readonly contentType: string | null;
  readonly body: Buffer | null;
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly responseText: string;
}

const ERROR_FIELDS = new Set(['status', 'type', 'title', 'detail', 'pointer', 'requestId']);
/** RFC 6901: "" or a sequence of "/" tokens in which "~" is only followed by 0 or 1. */
const JSON_POINTER = /^(?:\/(?:[^~/]|~[01])*)*$/;
const CLAIMS_MALFORMED = /malformed|not valid json|invalid json|unexpected token/i;

/** The body as the server should read it: UTF-8 (strictly), one JSON document, a byte-order mark allowed. */
export function strictJson(body: Buffer | null): { ok: true; value: unknown } | { ok: false } {
  if (body === null) return { ok: false };
  try {
    const text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(body);
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/**
 * The OpenAPI request schemas, compiled: a 2xx promises the body met its operation's schema.
 * An operation is registered by its path (or another key, see Exchange.operation); one
 * registered without a schema takes no body, and what it is sent is not judged on success.
 */
export class RequestSchemas {
  private readonly validators = new Map<string, ValidateFunction | null>();

  constructor(doc: OpenApiDocument, ops: ReadonlyArray<{ readonly path: string; readonly schema: SchemaObject | undefined }>) {
    const ajv = new Ajv({ strict: false, allErrors: false });
    // OpenAPI's `password` format is a hint to user interfaces (mask the field), not a constraint.
    ajv.addFormat('password', true);
    ajv.addSchema({ $id: 'openapi.json', components: doc.components });
    for (const op of ops) this.validators.set(withoutSlash(op.path), op.schema ? ajv.compile(rebase(op.schema) as object) : null);
  }

  /** Whether the operation registered as `path` takes a request body. */
  takesBody(path: string): boolean {
    return this.validator(path) !== null;
  }

  /** Why the value does not meet the schema of the operation at `path` (trailing slash ignored), or null. */
  violation(path: string, value: unknown): string | null {
    const validate = this.validator(path);
    if (!validate || validate(value)) return null;
    return (validate.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message}`).join('; ');
  }

  private validator(path: string): ValidateFunction | null {
    const validate = this.validators.get(withoutSlash(path));
    if (validate === undefined) throw new Error(`No request schema for ${path}`);
    return validate;
  }
}

const withoutSlash = (path: string) => path.replace(/(.)\/$/, '$1');

function rebase(schema: SchemaObject | unknown): unknown {
  if (Array.isArray(schema)) return schema.map(rebase);
  if (typeof schema !== 'object' || schema === null) return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([k, v]) => [k, k === '$ref' && typeof v === 'string' && v.startsWith('#/') ? `openapi.json${v}` : rebase(v)]),
  );
}

/**
 * Whether the pointer is `/<name>` for one of the operation's path parameters (`{jobId}`): an id in
 * the path that cannot be one is answered 400 pointing at the parameter, as a query parameter is
 * (docs/api.md, "Errors"), not at the body.
 */
function namesPathParameter(operation: string | undefined, pointer: string): boolean {
  if (operation === undefined) return false;
  return [...operation.matchAll(/\{([^}]+)\}/g)].some(([, name]) => pointer === `/${name}`);
}

/** Whether the pointer names a value in the document, or a missing member of one that is there. */
function pointerFits(document: unknown, pointer: string): boolean {
  if (pointer === '') return true;
  const tokens = pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
  let node: unknown = document;
  for (const [i, token] of tokens.entries()) {
    const last = i === tokens.length - 1;
    if (Array.isArray(node) && /^(0|[1-9]\d*)$/.test(token) && Number(token) < node.length) node = node[Number(token)];
    else if (typeof node === 'object' && node !== null && !Array.isArray(node) && Object.hasOwn(node, token)) node = (node as Record<string, unknown>)[token];
    // A missing member is named by its place in the object (a body of null is not one: it is
    // refused as a whole, with the pointer "").
    else return last && typeof node === 'object' && node !== null && !Array.isArray(node);
  }
  return true;
}

/** Everything wrong with one exchange, apart from what the log shows (see `recordedProblems`). */
export function responseProblems(x: Exchange, schemas: RequestSchemas): string[] {
  const problems: string[] = [];
  if (x.status >= 500) problems.push(`answered ${x.status}`);
  if (x.headers['x-request-id'] !== x.token) problems.push(`X-Request-Id is ${String(x.headers['x-request-id'])}, not the one sent`);
  const operation = x.operation ?? x.path;
  if (x.status === 204) {
    if (x.responseText !== '') problems.push(`204 with a body: ${x.responseText.slice(0, 200)}`);
    return [...problems, ...successProblems(x, operation, schemas)];
  }
  const contentType = String(x.headers['content-type'] ?? '');
  if (!/^application\/json(;|$)/.test(contentType)) problems.push(`content type is '${contentType}'`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(x.responseText);
  } catch {
    problems.push(`response body is not JSON: ${x.responseText.slice(0, 200)}`);
    return problems;
  }
  const sent = strictJson(x.body);
  const sentAsJson = x.contentType !== null && /^application\/json\s*(;|$)/i.test(x.contentType);
  if (x.status >= 400) {
    problems.push(...errorBodyProblems(parsed, x.status, x.token));
    const errors = ((parsed as { errors?: unknown[] }).errors ?? []) as Array<Record<string, unknown>>;
    // A 400 is bad input: each error says where ("" for the whole body).
    if (x.status === 400 && errors.some((e) => typeof e?.['pointer'] !== 'string')) problems.push('a 400 error without a pointer');
    if (sent.ok && sentAsJson && x.status < 500) {
      for (const e of errors) {
        if (
          typeof e['pointer'] === 'string' &&
          JSON_POINTER.test(e['pointer']) &&
          !pointerFits(sent.value, e['pointer']) &&
          !namesPathParameter(x.operation, e['pointer'])
        ) {
          problems.push(`pointer ${e['pointer']} is not in the body sent`);
        }
        if (CLAIMS_MALFORMED.test(`${String(e['title'])} ${String(e['detail'])}`))
          problems.push(`well-formed JSON called malformed: ${String(e['title'])}: ${String(e['detail'])}`);
      }
    }
  } else {
    problems.push(...successProblems(x, operation, schemas));
  }
  return problems;
}

/** What a success promises of the body sent, for an operation that takes one. */
function successProblems(x: Exchange, operation: string, schemas: RequestSchemas): string[] {
  if (!schemas.takesBody(operation)) return [];
  const sent = strictJson(x.body);
  const sentAsJson = x.contentType !== null && /^application\/json\s*(;|$)/i.test(x.contentType);
  const problems: string[] = [];
  if (!sentAsJson) problems.push(`accepted a body sent as '${String(x.contentType)}'`);
  if (!sent.ok) problems.push('accepted a body that is not well-formed UTF-8 JSON');
  else {
    const violation = schemas.violation(operation, sent.value);
    if (violation) problems.push(`accepted a body that does not meet the OpenAPI request schema: ${violation}`);
  }
  return problems;
}

/** The error body (docs/api.md, "Errors"): errors[] of {status, type[], title, detail?, pointer?, requestId?}. */
export function errorBodyProblems(body: unknown, status: number, token: string): string[] {
  const errors = (body as { errors?: unknown } | null)?.errors;
  if (typeof body !== 'object' || body === null || Array.isArray(body) || Object.keys(body).join() !== 'errors') return ['error body is not {errors: [...]}'];
  if (!Array.isArray(errors) || errors.length === 0) return ['errors is not a non-empty array'];
  return errors.flatMap((e: Record<string, unknown>, i) => {
    const at = `errors[${i}]`;
    const p: string[] = [];
    if (typeof e !== 'object' || e === null) return [`${at} is not an object`];
    const extra = Object.keys(e).filter((k) => !ERROR_FIELDS.has(k));
    if (extra.length > 0) p.push(`${at} has fields outside section 7: ${extra.join(', ')}`);
    if (e['status'] !== status) p.push(`${at}.status is ${JSON.stringify(e['status'])}, the response ${status}`);
    if (!Array.isArray(e['type']) || e['type'].length === 0 || !e['type'].every((t) => typeof t === 'string')) p.push(`${at}.type is not an array of strings`);
    if (typeof e['title'] !== 'string' || e['title'] === '') p.push(`${at}.title is not a non-empty string`);
    if (e['detail'] !== undefined && typeof e['detail'] !== 'string') p.push(`${at}.detail is not a string`);
    if (e['pointer'] !== undefined && (typeof e['pointer'] !== 'string' || !JSON_POINTER.test(e['pointer'])))
      p.push(`${at}.pointer ${JSON.stringify(e['pointer'])} is not a JSON pointer`);
    if (e['requestId'] !== undefined && e['requestId'] !== token) p.push(`${at}.requestId is ${JSON.stringify(e['requestId'])}`);
    if (/\bat .*\.js:\d+/.test(JSON.stringify(e))) p.push(`${at} leaks a stack trace`);
    return p;
  });
}
