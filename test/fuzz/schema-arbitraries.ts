import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { Id, type Json, Obj } from './json-text.js';

export interface SchemaObject {
  readonly $ref?: string;
  readonly type?: string;
  readonly enum?: readonly unknown[];
  readonly properties?: Readonly<Record<string, SchemaObject>>;
  readonly required?: readonly string[];
  readonly additionalProperties?: boolean | SchemaObject;
  readonly items?: SchemaObject;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly allOf?: readonly SchemaObject[];
  readonly nullable?: boolean;
}

export interface OpenApiOperation {
  readonly operationId?: string;
  readonly parameters?: ReadonlyArray<{ readonly name?: string; readonly in?: string; readonly $ref?: string }>;
  readonly requestBody?: { content?: Record<string, { schema?: SchemaObject }> };
}

export interface OpenApiDocument {
  readonly paths: Readonly<Record<string, Readonly<Record<string, OpenApiOperation>>>>;
  readonly components: { readonly schemas: Readonly<Record<string, SchemaObject>> };
}

/** A POST operation of the document that takes a JSON body. */
export interface PostOperation {
  readonly path: string;
  readonly operationId: string;
  readonly schema: SchemaObject;
}

export const OPENAPI_FILE = join(import.meta.dirname, '../../docs/openapi.json');

export const readOpenApi = (file = OPENAPI_FILE): OpenApiDocument => JSON.parse(readFileSync(file, 'utf8')) as OpenApiDocument;

/**
 * Every customer POST (`/api/v1/`) with a JSON request body, read from the document so new routes
 * are fuzzed as they appear. The console's routes are not: they need a signed-in session, and a
 * refused sign-in is recorded on purpose (the access audit), which this suite's invariants forbid.
 */
export function postOperations(doc: OpenApiDocument): PostOperation[] {
  return Object.entries(doc.paths)
    .filter(([path]) => path.startsWith('/api/v1/'))
    .flatMap(([path, methods]) => {
      const schema = methods['post']?.requestBody?.content?.['application/json']?.schema;
      return schema ? [{ path, operationId: methods['post']!.operationId ?? `POST ${path}`, schema }] : [];
    });
}

/** A console operation (`/api/console/v1/`) that takes a JSON body or a path parameter. */
export interface ConsoleOperation {
  readonly method: string;
  /** The path as the document writes it, with `{param}` placeholders. */
  readonly path: string;
  readonly operationId: string;
  /** The JSON request body's schema; undefined for an operation that takes no body. */
  readonly schema: SchemaObject | undefined;
  readonly pathParams: readonly string[];
}

/**
 * Every console operation with a JSON request body or a path parameter, read from the document
 * so new console routes are fuzzed as they appear (console-routes.fuzz.spec.ts).
 */
export function consoleOperations(doc: OpenApiDocument): ConsoleOperation[] {
  return Object.entries(doc.paths)
    .filter(([path]) => path.startsWith('/api/console/v1/'))
    .flatMap(([path, methods]) =>
      Object.entries(methods).flatMap(([method, op]) => {
        const schema = op.requestBody?.content?.['application/json']?.schema;
        const pathParams = (op.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name!);
        if (!schema && pathParams.length === 0) return [];
        return [{ method: method.toUpperCase(), path, operationId: op.operationId ?? `${method.toUpperCase()} ${path}`, schema, pathParams }];
      }),
    );
}

/** An item type as GET /api/v1/item_types/ describes it. */
export interface ItemTypeInfo {
  readonly id: string;
  readonly fields: ReadonlyArray<{
    readonly name: string;
    readonly type: string;
    readonly required: boolean;
    readonly array: boolean;
    readonly itemTypeIds: readonly string[];
  }>;
}

/** What the generators know of the organization behind the server. */
export interface Domain {
  readonly doc: OpenApiDocument;
  readonly itemTypes: readonly ItemTypeInfo[];
}

/** Words the fuzz organization's rules fire on, so that valid items lead to evaluations and callbacks. */
const TEXTS = ['hello', 'this is a scam', 'buy now, only today', 'I am a bot', 'scam thread', 'fine', ''];

/** Properties that name an item type, and those that carry an item id (which get the request token). */
export const isTypeName = (name: string) => /(^typeId|Type|TypeId)$/.test(name);
export const isIdName = (name: string) => !isTypeName(name) && /(^id|Id)$/.test(name);

/** Id suffixes: mostly short and distinct, sometimes any text, sometimes one of two (duplicates). */
export const idSuffix: fc.Arbitrary<string> = fc.oneof(
  { weight: 8, arbitrary: fc.stringMatching(/^[a-z0-9]{1,6}$/) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 }) },
  { weight: 1, arbitrary: fc.constantFrom('same', 'x') },
);

export function resolve(doc: OpenApiDocument, schema: SchemaObject): SchemaObject {
  if (schema.$ref) return resolve(doc, doc.components.schemas[schema.$ref.split('/').pop()!]!);
  if (schema.allOf?.length === 1) return resolve(doc, schema.allOf[0]!);
  return schema;
}

const isOpenObject = (s: SchemaObject) => s.type === 'object' && !s.properties && !isDictionary(s) && s.additionalProperties !== false;
/** An object whose members all meet one schema (`roleMap: {<group>: [ROLES]}`). */
const isDictionary = (s: SchemaObject) =>
  s.type === 'object' && !s.properties && typeof s.additionalProperties === 'object' && Object.keys(s.additionalProperties).length > 0;

/** Valid values of a schema, with the organization's item types where the schema names one. */
export function validValue(domain: Domain, raw: SchemaObject, name = ''): fc.Arbitrary<Json> {
  const schema = resolve(domain.doc, raw);
  if (schema.nullable) return fc.option(validValue(domain, { ...schema, nullable: false }, name), { freq: 4 });
  if (schema.enum) return fc.constantFrom(...(schema.enum as Json[]));
  switch (schema.type) {
    case 'object':
      if (isDictionary(schema)) {
        const member = validValue(domain, schema.additionalProperties as SchemaObject);
        return fc.uniqueArray(fc.tuple(fc.string({ maxLength: 12 }), member), { maxLength: 3, selector: ([k]) => k }).map((entries) => new Obj(entries));
      }
      return isOpenObject(schema) ? fc.oneof(...domain.itemTypes.map((t) => itemData(domain, t))) : objectValue(domain, schema);
    case 'array':
      return fc.array(validValue(domain, schema.items ?? {}), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.max(schema.minItems ?? 0, Math.min(schema.maxItems ?? 4, 4)),
      });
    case 'string':
      if (isTypeName(name)) return fc.constantFrom(...domain.itemTypes.map((t) => t.id));
      if (isIdName(name)) return idSuffix.map((s) => new Id(s));
      return fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.max(schema.minLength ?? 0, Math.min(schema.maxLength ?? 20, 20)) });
    case 'boolean':
      return fc.boolean();
    case 'number':
    case 'integer':
      return fc.integer({ min: -1000, max: 1000 });
    default:
      return anyJson();
  }
}

function objectValue(domain: Domain, schema: SchemaObject): fc.Arbitrary<Json> {
  const props = Object.entries(schema.properties ?? {});
  const required = new Set(schema.required ?? []);
  // An object that names an item type and carries an open object (the item's data) gets data
  // of that type: {typeId, data} on items, {contentType, content} on the legacy endpoint.
  const typeKey = props.find(([k]) => isTypeName(k))?.[0];
  const dataKey = props.find(([, s]) => isOpenObject(resolve(domain.doc, s)))?.[0];
  // Arbitraries are built once per item type, not per value (fast-check's chain would rebuild them).
  const ofType = (itemType: ItemTypeInfo) =>
    fc
      .tuple(
        ...props.map(([key, s]) => {
          const value =
            key === typeKey && dataKey ? fc.constant(itemType.id) : key === dataKey && typeKey ? itemData(domain, itemType) : validValue(domain, s, key);
          return required.has(key)
            ? value.map((v) => [key, v] as const)
            : fc.option(
                value.map((v) => [key, v] as const),
                { freq: 2 },
              );
        }),
      )
      .map((entries) => new Obj(entries.filter((e): e is readonly [string, Json] => e !== null)));
  return typeKey && dataKey ? fc.oneof(...domain.itemTypes.map(ofType)) : ofType(domain.itemTypes[0]!);
}

/** An item's data for its type: required fields, some optional ones, now and then an undeclared one. */
export function itemData(domain: Domain, itemType: ItemTypeInfo): fc.Arbitrary<Json> {
  const fields = itemType.fields.map((f) => {
    const one = fieldValue(domain, f.type, f.itemTypeIds);
    const value = f.array ? fc.array(one, { maxLength: 3 }) : one;
    const entry = value.map((v) => [f.name, v] as const);
    return f.required ? entry : fc.option(entry, { freq: 3 });
  });
  const extra = fc.option(fc.tuple(fc.constantFrom('note', 'score', 'meta', 'x-custom'), anyJson()), { freq: 6 });
  return fc
    .tuple(fc.tuple(...fields), extra)
    .map(([entries, more]) => new Obj([...entries, ...(more ? [more] : [])].filter((e): e is readonly [string, Json] => e !== null)));
}

function fieldValue(domain: Domain, type: string, itemTypeIds: readonly string[]): fc.Arbitrary<Json> {
  switch (type) {
    case 'STRING':
      return fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...TEXTS) }, fc.string({ maxLength: 40 }), fc.string({ unit: 'grapheme', maxLength: 40 }));
    case 'NUMBER':
      return fc.oneof(fc.integer({ min: -100, max: 100 }), fc.double({ noNaN: true, noDefaultInfinity: true }));
    case 'BOOLEAN':
      return fc.boolean();
    case 'DATETIME':
      return fc.date({ min: new Date('1970-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString());
    case 'GEOHASH':
      return fc.stringMatching(/^[0-9b-hjkmnp-z]{1,12}$/);
    case 'URL':
    case 'IMAGE':
    case 'AUDIO':
    case 'VIDEO':
      return fc.webUrl({ validSchemes: ['http', 'https'] });
    case 'RELATED_ITEM': {
      const types = itemTypeIds.length > 0 ? itemTypeIds : domain.itemTypes.map((t) => t.id);
      return fc.tuple(idSuffix, fc.constantFrom(...types)).map(
        ([id, typeId]) =>
          new Obj([
            ['id', new Id(id)],
            ['typeId', typeId],
          ]),
      );
    }
    default:
      return anyJson();
  }
}

/** Any small JSON value, objects as entry lists (keys may include `__proto__`: see `withoutPrototypeKeys`). */
export const anyJson = (maxDepth = 2): fc.Arbitrary<Json> => fc.jsonValue({ maxDepth }).map(toJson);

export function toJson(value: unknown): Json {
  if (Array.isArray(value)) return value.map(toJson);
  if (typeof value === 'object' && value !== null) return new Obj(Object.entries(value).map(([k, v]) => [k, toJson(v)] as const));
  return value as Json;
}
