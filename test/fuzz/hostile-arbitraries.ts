import fc from 'fast-check';
import { BadUtf8, Deep, Huge, Id, type Json, nthPlace, Obj, Raw, renameIds, updateAt } from './json-text.js';
import { anyJson, type Domain, type PostOperation, idSuffix, isIdName, validValue } from './schema-arbitraries.js';

/**
 * Which hostile families the generators use. The main property turns off those that trigger a
 * defect main still has (fuzz-settings.ts, KNOWN_DEFECTS); a focused property turns one back on.
 */
export interface FuzzOptions {
  /** Nesting hundreds to thousands of levels deep (defect 1); otherwise at most 32 levels. */
  readonly deepNesting: boolean;
  /** Lone surrogates in item ids (defect 2); elsewhere they are always generated. */
  readonly loneSurrogateIds: boolean;
  /** The same item id twice in one request (defect 3). */
  readonly duplicateIds: boolean;
  /** `__proto__` and `constructor` keys (defect 4); `prototype` is always generated. */
  readonly prototypeKeys: boolean;
  /** Strings whose bytes are not UTF-8. */
  readonly invalidUtf8: boolean;
}

/** One request: which operation, with which content type, and what body. */
export interface FuzzCase {
  /** POST unless said. */
  readonly method?: string;
  /** The path sent (path parameters filled in). */
  readonly path: string;
  /** The operation's key in RequestSchemas when it is not `path` (a path with parameters). */
  readonly operation?: string;
  readonly contentType: string | null;
  readonly body: BodySpec;
}

export type BodySpec =
  | { readonly kind: 'json'; readonly value: Json }
  /** The rendered value cut to this fraction of its bytes. */
  | { readonly kind: 'truncated'; readonly value: Json; readonly keep: number }
  /** The rendered value with text before and after it (a byte-order mark, a second document). */
  | { readonly kind: 'framed'; readonly before: string; readonly value: Json; readonly after: string }
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'bytes'; readonly bytes: readonly number[] }
  | { readonly kind: 'none' };

const PROTOTYPE_KEYS = ['__proto__', 'constructor'];
const LONE_SURROGATES = ['\udc00', 'bad\udc00', '\ud800', 'a\ud800b', '\udfff\ud800', '\ud83d'];
/** Byte sequences that are not UTF-8: stray continuation, overlong, encoded surrogate, past U+10FFFF, truncated. */
const NOT_UTF8 = [[0xff], [0x80], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x82], [0xfe, 0xfe]];

const hasLoneSurrogate = (node: Json): boolean =>
  (typeof node === 'string' && !node.isWellFormed()) ||
  (node instanceof Raw && /\\u[dD][89a-fA-F]/.test(node.text)) ||
  (node instanceof Huge && !node.unit.isWellFormed()) ||
  (Array.isArray(node) && node.some(hasLoneSurrogate)) ||
  (node instanceof Obj && node.entries.some(([k, v]) => !k.isWellFormed() || hasLoneSurrogate(v))) ||
  (node instanceof Deep && hasLoneSurrogate(node.leaf));

const depthArb = (o: FuzzOptions) =>
  o.deepNesting
    ? fc.oneof(fc.integer({ min: 100, max: 1000 }), fc.integer({ min: 1000, max: 5000 }), fc.constantFrom(128, 256, 512, 1024, 1500, 2048, 10_000))
    : fc.integer({ min: 2, max: 32 });

/** Lengths around the limits a server may set (1 KiB … 1 MiB) and past the 10 MiB body limit. */
const hugeCount = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(1023, 1024, 1025, 4096, 65_535, 65_536, 65_537, 262_144) },
  { weight: 3, arbitrary: fc.integer({ min: 1000, max: 300_000 }) },
  { weight: 2, arbitrary: fc.constantFrom(1_048_575, 1_048_576, 1_048_577, 2_000_000) },
  { weight: 1, arbitrary: fc.constantFrom(5 * 1024 * 1024, 10 * 1024 * 1024 - 64, 10 * 1024 * 1024 + 1) },
);

const notUtf8 = (around: number) =>
  fc.tuple(fc.string({ maxLength: around }), fc.constantFrom(...NOT_UTF8), fc.string({ maxLength: around })).map(([a, b, c]) => new BadUtf8(a, b, c));

const hostileString = (o: FuzzOptions): fc.Arbitrary<Json> =>
  fc.oneof(
    fc.constantFrom('', ' ', '\u0000', '\t\n', '\u2028\u2029', '\u202eevil', 'e\u0301\u0301\u0301', '😀', '%00', '../../etc/passwd', ':', '-'),
    fc.constantFrom(...LONE_SURROGATES),
    fc.string({ unit: 'binary', maxLength: 30 }),
    ...(o.invalidUtf8 ? [notUtf8(5)] : []),
    // The length is in bytes of JSON text, whatever the unit's escaped size.
    fc
      .tuple(fc.constantFrom('x', 'é', '😀', '\u0000', '"', '\\', '\ud800'), hugeCount)
      .map(([u, bytes]) => new Huge(u, Math.max(1, Math.floor(bytes / Buffer.byteLength(JSON.stringify(u).slice(1, -1)))))),
  );

/** Numbers JSON can spell that a JS number cannot hold exactly (or at all). */
const hostileNumber: fc.Arbitrary<Json> = fc.oneof(
  fc.constantFrom(
    new Raw('1e400'),
    new Raw('-1e400'),
    new Raw('-0'),
    new Raw('-0.0'),
    new Raw('1e-400'),
    new Raw('123456789012345678901234567890'),
    new Raw('9007199254740993'),
    new Raw('1E+2'),
  ),
  fc.constantFrom(Number.MAX_VALUE, Number.MIN_VALUE, Number.MAX_SAFE_INTEGER, -1, 0, 0.5),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

/** Tokens that make the document not JSON at all, and escapes that are valid but odd. */
const strangeToken: fc.Arbitrary<Json> = fc.constantFrom(
  new Raw('NaN'),
  new Raw('Infinity'),
  new Raw('undefined'),
  new Raw("'single'"),
  new Raw('01'),
  new Raw('.5'),
  new Raw('"\\x41"'),
  new Raw('"tab\there"'),
  new Raw('"\\u0000"'),
  new Raw('"\\ud800"'),
  new Raw('"\\uDC00x"'),
  new Raw('[1,]'),
  new Raw('{"a":1,}'),
  new Raw('{"a" 1}'),
);

const wrongType: fc.Arbitrary<Json> = fc.constantFrom<Json>(null, true, false, 0, -1, 1.5, '', 'text', [], new Obj([]), [null], new Obj([['id', 1]]));

function hostileValue(o: FuzzOptions): fc.Arbitrary<Json> {
  return fc.oneof(
    { weight: 4, arbitrary: wrongType },
    { weight: 3, arbitrary: hostileString(o) },
    { weight: 2, arbitrary: hostileNumber },
    { weight: 1, arbitrary: strangeToken },
    { weight: 2, arbitrary: anyJson(3).map((v) => (o.prototypeKeys ? v : withoutPrototypeKeys(v))) },
    { weight: 1, arbitrary: fc.tuple(depthArb(o), fc.constantFrom('array' as const, 'object' as const), wrongType).map(([d, s, l]) => new Deep(d, s, l)) },
  );
}

export function withoutPrototypeKeys(node: Json): Json {
  if (Array.isArray(node)) return node.map(withoutPrototypeKeys);
  if (node instanceof Obj) return new Obj(node.entries.filter(([k]) => !PROTOTYPE_KEYS.includes(k)).map(([k, v]) => [k, withoutPrototypeKeys(v)] as const));
  return node;
}

type Mutation =
  | { readonly op: 'replace'; readonly at: number; readonly with: Json }
  | { readonly op: 'remove'; readonly at: number }
  | { readonly op: 'addKey'; readonly at: number; readonly key: string; readonly value: Json }
  | { readonly op: 'duplicate'; readonly at: number; readonly index: number }
  | { readonly op: 'oversize'; readonly at: number; readonly count: number }
  | { readonly op: 'nest'; readonly at: number; readonly depth: number; readonly style: 'array' | 'object' }
  | { readonly op: 'badId'; readonly at: number; readonly suffix: string | BadUtf8 };

function mutation(o: FuzzOptions): fc.Arbitrary<Mutation> {
  const at = fc.nat({ max: 10_000 });
  const keys = fc.oneof(
    fc.constantFrom('prototype', 'toString', 'hasOwnProperty', 'valueOf', 'items', 'id', 'data', 'typeId', '', '$ref', 'a/b', 'a~b', '\udc00', 'k\ud800', 'é'),
    ...(o.prototypeKeys ? [fc.constantFrom(...PROTOTYPE_KEYS)] : []),
    fc.string({ maxLength: 10 }).filter((k) => o.prototypeKeys || !PROTOTYPE_KEYS.includes(k)),
  );
  const suffix = fc.oneof(idSuffix, ...(o.invalidUtf8 ? [notUtf8(4)] : []), ...(o.loneSurrogateIds ? [fc.constantFrom(...LONE_SURROGATES)] : []));
  return fc.oneof(
    { weight: 10, arbitrary: fc.record({ op: fc.constant('replace' as const), at, with: hostileValue(o) }) },
    { weight: 5, arbitrary: fc.record({ op: fc.constant('remove' as const), at }) },
    { weight: 4, arbitrary: fc.record({ op: fc.constant('addKey' as const), at, key: keys, value: hostileValue(o) }) },
    { weight: 2, arbitrary: fc.record({ op: fc.constant('duplicate' as const), at, index: fc.nat() }) },
    { weight: 1, arbitrary: fc.record({ op: fc.constant('oversize' as const), at, count: fc.constantFrom(1000, 1001, 1002, 1500) }) },
    {
      weight: 2,
      arbitrary: fc.record({ op: fc.constant('nest' as const), at, depth: depthArb(o), style: fc.constantFrom('array' as const, 'object' as const) }),
    },
    { weight: 3, arbitrary: fc.record({ op: fc.constant('badId' as const), at, suffix }) },
  );
}

/** Applies a mutation at the `at`-th node (modulo the node count); one that does not fit leaves the tree as it is. */
export function applyMutation(root: Json, m: Mutation, _options: FuzzOptions): Json {
  if (m.op === 'badId') {
    const id = nthPlace(root, m.at, (n) => n instanceof Id);
    return id ? updateAt(root, id.path, () => new Id(m.suffix)) : root;
  }
  const { node, path } = nthPlace(root, m.at)!;
  switch (m.op) {
    case 'replace':
      return updateAt(root, path, () => m.with);
    case 'remove':
      return path.length === 0 ? root : updateAt(root, path, () => undefined);
    case 'addKey':
      return node instanceof Obj ? updateAt(root, path, () => new Obj([...node.entries, [m.key, m.value]])) : root;
    case 'duplicate':
      // An array gets a copy of one of its elements (same ids); an object a second entry with an existing key.
      if (Array.isArray(node) && node.length > 0) return updateAt(root, path, () => [...node, node[m.index % node.length]!]);
      if (node instanceof Obj && node.entries.length > 0)
        return updateAt(root, path, () => new Obj([...node.entries, node.entries[m.index % node.entries.length]!]));
      return root;
    case 'oversize':
      if (!Array.isArray(node) || node.length === 0) return root;
      return updateAt(root, path, () => Array.from({ length: m.count }, (_, i) => renameIds(node[i % node.length]!, String(i))));
    case 'nest':
      return updateAt(root, path, (n) => new Deep(m.depth, m.style, n));
  }
}

/** Gives every item id a distinct suffix: no duplicate ids in a request. */
export function distinctIds(root: Json): Json {
  let n = 0;
  const walk = (node: Json): Json => {
    if (node instanceof Id) return typeof node.suffix === 'string' ? new Id(`${node.suffix}.${n++}`) : new Id(node.suffix);
    if (Array.isArray(node)) return node.map(walk);
    if (node instanceof Obj) return new Obj(node.entries.map(([k, v]) => [k, walk(v)] as const));
    if (node instanceof Deep) return new Deep(node.depth, node.style, walk(node.leaf));
    return node;
  };
  return walk(root);
}

/** The tree with every id (an `Id`, or the value of an id-named key) made free of lone surrogates. */
export function wellFormedIds(root: Json): Json {
  const fix = (node: Json): Json => {
    if (!hasLoneSurrogate(node)) return node;
    if (typeof node === 'string') return node.toWellFormed();
    if (node instanceof Id) return new Id(typeof node.suffix === 'string' ? node.suffix.toWellFormed() : node.suffix);
    return 'replaced';
  };
  const walk = (node: Json): Json => {
    if (node instanceof Id) return fix(node);
    if (Array.isArray(node)) return node.map(walk);
    if (node instanceof Obj) return new Obj(node.entries.map(([k, v]) => [k, isIdName(k) ? fix(walk(v)) : walk(v)] as const));
    if (node instanceof Deep) return new Deep(node.depth, node.style, walk(node.leaf));
    return node;
  };
  return walk(root);
}

/** A body for the operation: valid from its schema, then changed by up to three mutations. */
export function jsonBody(domain: Domain, op: PostOperation, o: FuzzOptions): fc.Arbitrary<Json> {
  return fc
    .tuple(
      validValue(domain, op.schema),
      fc.oneof({ weight: 1, arbitrary: fc.constant([]) }, { weight: 2, arbitrary: fc.array(mutation(o), { minLength: 1, maxLength: 3 }) }),
    )
    .map(([valid, mutations]) => {
      const mutated = mutations.reduce<Json>((v, m) => applyMutation(v, m, o), valid);
      const keysOk = o.prototypeKeys ? mutated : withoutPrototypeKeys(mutated);
      const idsOk = o.loneSurrogateIds ? keysOk : wellFormedIds(keysOk);
      return o.duplicateIds ? idsOk : distinctIds(idsOk);
    });
}

const RAW_BODIES = [
  '',
  ' ',
  '\n\t ',
  'null',
  'true',
  '0',
  '""',
  '[]',
  '{',
  '}',
  '{"items":',
  '{"items":[',
  '{"items":[{}',
  "{'items':[]}",
  'items=1',
  '{}{}',
  '{} x',
  '\u0000',
  '{"items":[{"id":"a","typeId":"post","data":{"text":"x"}}]}garbage',
];

export function body(domain: Domain, op: PostOperation, o: FuzzOptions): fc.Arbitrary<BodySpec> {
  const value = jsonBody(domain, op, o);
  return fc.oneof(
    { weight: 70, arbitrary: value.map((v) => ({ kind: 'json' as const, value: v })) },
    { weight: 6, arbitrary: fc.tuple(value, fc.double({ min: 0, max: 1, noNaN: true })).map(([v, keep]) => ({ kind: 'truncated' as const, value: v, keep })) },
    {
      weight: 4,
      arbitrary: fc
        .tuple(fc.constantFrom('', '\uFEFF', ' \n'), value, fc.constantFrom('', '\n', ' {}', ',', ' null', '\u0000'))
        .map(([before, v, after]) => ({ kind: 'framed' as const, before, value: v, after })),
    },
    { weight: 6, arbitrary: fc.constantFrom(...RAW_BODIES).map((text) => ({ kind: 'text' as const, text })) },
    { weight: 3, arbitrary: fc.array(fc.nat({ max: 255 }), { maxLength: 64 }).map((bytes) => ({ kind: 'bytes' as const, bytes })) },
    {
      weight: 4,
      arbitrary: fc
        .oneof(
          wrongType,
          hostileNumber,
          hostileString(o),
          value.map((v) => [v]),
        )
        .map((v) => ({ kind: 'json' as const, value: v })),
    },
    { weight: 2, arbitrary: fc.constant({ kind: 'none' as const }) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(depthArb(o), fc.constantFrom('array' as const, 'object' as const), value)
        .map(([d, s, v]) => ({ kind: 'json' as const, value: new Deep(d, s, v) })),
    },
  );
}

export const contentType: fc.Arbitrary<string | null> = fc.oneof(
  { weight: 40, arbitrary: fc.constant('application/json') },
  {
    weight: 6,
    arbitrary: fc.constantFrom(
      'application/json; charset=utf-8',
      'application/json;charset=UTF-8',
      'Application/JSON',
      'application/json; charset=utf-16le',
      'application/json; charset=latin1',
      'application/merge-patch+json',
      'application/vnd.api+json',
      'text/plain',
      'text/json',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=fuzz',
      'application/octet-stream',
      'application/jsonx',
      'application/json, text/plain',
      '',
      '*/*',
    ),
  },
  { weight: 2, arbitrary: fc.constant(null) },
);

/** A body every operation must accept: valid by its schema and the item types, ids distinct. */
export function validCase(domain: Domain, ops: readonly PostOperation[]): fc.Arbitrary<FuzzCase> {
  return fc.oneof(
    ...ops.map((op) =>
      // Free-form values (`data`, extra members) may draw `__proto__` or `constructor` as a key, which Warden refuses (defect 4).
      validValue(domain, op.schema).map((v) => ({
        path: op.path,
        contentType: 'application/json',
        body: { kind: 'json' as const, value: distinctIds(withoutPrototypeKeys(v)) },
      })),
    ),
  );
}

/** A request to any POST operation of the document, with or without the trailing slash the spec writes. */
export function fuzzCase(domain: Domain, ops: readonly PostOperation[], o: FuzzOptions): fc.Arbitrary<FuzzCase> {
  return fc.oneof(
    ...ops.map((op) =>
      fc.record({
        path: fc.boolean().map((slash) => (slash ? op.path.replace(/\/?$/, '/') : op.path.replace(/(.)\/$/, '$1'))),
        contentType,
        body: body(domain, op, o),
      }),
    ),
  );
}

export type Family = keyof FuzzOptions;

/**
 * The cases that show one family's defect: a valid JSON body for an operation, changed by the
 * one mutation of that family (where the body has a place for it).
 */
export function defectCase(domain: Domain, ops: readonly PostOperation[], family: Family): fc.Arbitrary<FuzzCase> {
  const on: FuzzOptions = { deepNesting: false, loneSurrogateIds: false, duplicateIds: false, prototypeKeys: false, invalidUtf8: false, [family]: true };
  const at = fc.nat({ max: 10_000 });
  const style = fc.constantFrom('array' as const, 'object' as const);
  const trigger: fc.Arbitrary<Mutation | null> = {
    deepNesting: fc.record({ op: fc.constant('nest' as const), at, depth: fc.integer({ min: 1500, max: 5000 }), style }),
    loneSurrogateIds: fc.record({ op: fc.constant('badId' as const), at, suffix: fc.constantFrom(...LONE_SURROGATES) }),
    // Copies the first element of the first array (the items): see below.
    duplicateIds: fc.constant(null),
    prototypeKeys: fc.record({
      op: fc.constant('addKey' as const),
      at,
      key: fc.constantFrom(...PROTOTYPE_KEYS),
      value: fc.constantFrom<Json>(new Obj([['prototype', new Obj([])]]), new Obj([['polluted', true]])),
    }),
    invalidUtf8: fc.record({ op: fc.constant('badId' as const), at, suffix: notUtf8(4) }),
  }[family];
  return fc.oneof(
    ...ops.map((op) =>
      fc.tuple(validValue(domain, op.schema).map(distinctIds), trigger).map(([valid, m]) => {
        const firstArray = nthPlace(valid, 0, (n) => Array.isArray(n) && n.length > 0);
        const value = m ? applyMutation(valid, m, on) : firstArray ? updateAt(valid, firstArray.path, (n) => [...(n as Json[]), (n as Json[])[0]!]) : valid;
        return { path: op.path, contentType: 'application/json', body: { kind: 'json' as const, value } };
      }),
    ),
  );
}

/** Path segments that are not ids: traversal, encoded NUL, slash and surrogate halves, bytes that are not UTF-8, prototype names. */
const HOSTILE_SEGMENTS = [
  '%20',
  '.',
  '..',
  '%2e%2e',
  '%2F',
  '..%2F..%2Fetc%2Fpasswd',
  '%00',
  '%ED%A0%80',
  '%ED%B0%80x',
  '%FF',
  '%C0%AF',
  '%',
  '%zz',
  '%25',
  '__proto__',
  'constructor',
  'prototype',
  'hasOwnProperty',
  'null',
  'undefined',
  '0',
  '-1',
  '1e400',
  '%7B%7D',
  '%22%27%3C%3E',
  '*',
  ';',
  ':id',
  '%E2%80%AE',
];

/**
 * A path parameter as sent (percent-encoded): one of the `known` ids (some the caller's, some
 * another organization's), such an id changed a little (an appended NUL or slash, its case, a
 * space), or a hostile segment: any text, or kilobytes of it (under Node's 16 KiB header limit).
 */
export function pathSegment(known: readonly string[]): fc.Arbitrary<string> {
  const encode = (s: string) => encodeURIComponent(s.toWellFormed());
  return fc.oneof(
    ...(known.length > 0
      ? [
          { weight: 4, arbitrary: fc.constantFrom(...known).map(encode) },
          {
            weight: 2,
            arbitrary: fc
              .tuple(fc.constantFrom(...known), fc.constantFrom('%00', '%2F', '/', '%20', 'x', '.json', '%ED%A0%80'), fc.boolean())
              .map(([id, extra, upper]) => encode(upper ? id.toUpperCase() : id) + extra),
          },
        ]
      : []),
    { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_SEGMENTS) },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 30 }).map(encode) },
    {
      weight: 1,
      arbitrary: fc.tuple(fc.constantFrom('x', '%C3%A9', '%00'), fc.integer({ min: 100, max: 4000 })).map(([u, n]) => u.repeat(n).slice(0, 12_000)),
    },
  );
}
