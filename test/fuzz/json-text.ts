import fc from 'fast-check';

/**
 * The bodies the fuzz suite sends, as a small JSON syntax tree that can say what a JS value
 * cannot: duplicate and `__proto__` keys (an object is a list of entries), text copied verbatim
 * (`1e400`, `-0`, `"\udc00"`), strings of raw bytes that are not UTF-8, strings megabytes long
 * and nesting thousands of levels deep (both kept as a size, so that fast-check can shrink them
 * and print them). Item ids are `Id` nodes: rendered with the request's token in front, so that
 * the log can be searched for whatever a request left behind.
 */
export type Json = null | boolean | number | string | Json[] | Obj | Id | Raw | Huge | Deep | BadUtf8;

export class Obj {
  constructor(readonly entries: ReadonlyArray<readonly [string, Json]>) {}
  [fc.toStringMethod](): string {
    return `{${this.entries.map(([k, v]) => `${JSON.stringify(k)}: ${fc.stringify(v)}`).join(', ')}}`;
  }
}

/** An item id: `<request token><suffix>`; the same suffix twice in a request is the same id. */
export class Id {
  constructor(readonly suffix: string | BadUtf8) {}
  [fc.toStringMethod](): string {
    return `Id(${fc.stringify(this.suffix)})`;
  }
}

/** JSON text written as is. */
export class Raw {
  constructor(readonly text: string) {}
  [fc.toStringMethod](): string {
    return `Raw(${JSON.stringify(this.text)})`;
  }
}

/** A string of `unit` repeated `count` times. */
export class Huge {
  constructor(
    readonly unit: string,
    readonly count: number,
  ) {}
  [fc.toStringMethod](): string {
    return `Huge(${JSON.stringify(this.unit)} x ${this.count})`;
  }
}

/** `leaf` nested `depth` levels deep in arrays (`[[…]]`) or objects (`{"a":{"a":…}}`). */
export class Deep {
  constructor(
    readonly depth: number,
    readonly style: 'array' | 'object',
    readonly leaf: Json,
  ) {}
  [fc.toStringMethod](): string {
    return `Deep(${this.depth}, ${this.style}, ${fc.stringify(this.leaf)})`;
  }
}

/** A JSON string whose bytes between `before` and `after` are not UTF-8. */
export class BadUtf8 {
  constructor(
    readonly before: string,
    readonly bytes: readonly number[],
    readonly after: string,
  ) {}
  [fc.toStringMethod](): string {
    return `BadUtf8(${JSON.stringify(this.before)}, [${this.bytes.map((b) => '0x' + b.toString(16)).join(', ')}], ${JSON.stringify(this.after)})`;
  }
}

/** Renders a tree to the bytes of a request body; `token` prefixes every item id. */
export function renderJson(value: Json, token: string): Buffer {
  const chunks: Buffer[] = [];
  let text = '';
  const flushText = () => {
    if (text !== '') chunks.push(Buffer.from(text, 'utf8'));
    text = '';
  };
  const bytes = (b: Buffer) => {
    flushText();
    chunks.push(b);
  };
  const badString = (s: BadUtf8, prefix = '') => {
    text += JSON.stringify(prefix + s.before).slice(0, -1);
    bytes(Buffer.from(s.bytes));
    text += JSON.stringify(s.after).slice(1);
  };
  const write = (v: Json): void => {
    if (v === null || typeof v === 'boolean' || typeof v === 'number' || typeof v === 'string') {
      // JSON.stringify writes a lone surrogate as a \uXXXX escape: the body stays ASCII-safe.
      text += JSON.stringify(v);
    } else if (Array.isArray(v)) {
      text += '[';
      v.forEach((e, i) => {
        if (i > 0) text += ',';
        write(e);
      });
      text += ']';
    } else if (v instanceof Obj) {
      text += '{';
      v.entries.forEach(([k, e], i) => {
        if (i > 0) text += ',';
        text += JSON.stringify(k) + ':';
        write(e);
      });
      text += '}';
    } else if (v instanceof Id) {
      if (v.suffix instanceof BadUtf8) badString(v.suffix, token);
      else text += JSON.stringify(token + v.suffix);
    } else if (v instanceof Raw) {
      text += v.text;
    } else if (v instanceof Huge) {
      const unit = JSON.stringify(v.unit).slice(1, -1);
      text += '"';
      bytes(Buffer.from(unit.repeat(v.count), 'utf8'));
      text += '"';
    } else if (v instanceof Deep) {
      const open = v.style === 'array' ? '[' : '{"a":';
      const close = v.style === 'array' ? ']' : '}';
      text += open.repeat(v.depth);
      write(v.leaf);
      text += close.repeat(v.depth);
    } else {
      badString(v);
    }
  };
  write(value);
  flushText();
  return Buffer.concat(chunks);
}

/** A node and where it sits: the entry and element indexes that lead to it from the root. */
export interface Place {
  readonly node: Json;
  readonly path: ReadonlyArray<string | number>;
}

/** The `n`-th node (modulo their number) among those that `fits`, in pre-order, with its path of entry and element indexes. */
export function nthPlace(root: Json, n: number, fits: (node: Json) => boolean = () => true): Place | undefined {
  let count = 0;
  const walk = (node: Json, visit: (node: Json, path: ReadonlyArray<number>) => boolean, path: number[]): boolean => {
    if (fits(node) && visit(node, path)) return true;
    const children = Array.isArray(node) ? node : node instanceof Obj ? node.entries.map(([, v]) => v) : [];
    for (let i = 0; i < children.length; i++) {
      path.push(i);
      if (walk(children[i]!, visit, path)) return true;
      path.pop();
    }
    return false;
  };
  walk(root, () => (count++, false), []);
  if (count === 0) return undefined;
  let seen = 0;
  let found: Place | undefined;
  walk(root, (node, path) => (seen++ === n % count ? ((found = { node, path: [...path] }), true) : false), []);
  return found;
}

/** A copy of `root` with the node at `path` (entry or element indexes) replaced by `f(node)`; undefined removes it. */
export function updateAt(root: Json, path: ReadonlyArray<string | number>, f: (node: Json) => Json | undefined): Json {
  if (path.length === 0) return f(root) ?? null;
  const [head, ...rest] = path;
  if (Array.isArray(root)) {
    const i = head as number;
    const next = rest.length === 0 ? f(root[i]!) : updateAt(root[i]!, rest, f);
    return next === undefined ? root.filter((_, j) => j !== i) : root.map((e, j) => (j === i ? next : e));
  }
  if (root instanceof Obj) {
    const i = head as number;
    const next = rest.length === 0 ? f(root.entries[i]![1]) : updateAt(root.entries[i]![1], rest, f);
    return new Obj(next === undefined ? root.entries.filter((_, j) => j !== i) : root.entries.map(([k, e], j) => [k, j === i ? next : e] as const));
  }
  return root;
}

/** The same tree with every item id given another suffix, so copies of an item are distinct items. */
export function renameIds(node: Json, tag: string): Json {
  if (node instanceof Id) return typeof node.suffix === 'string' ? new Id(`${node.suffix}.${tag}`) : node;
  if (Array.isArray(node)) return node.map((e) => renameIds(e, tag));
  if (node instanceof Obj) return new Obj(node.entries.map(([k, e]) => [k, renameIds(e, tag)] as const));
  return node;
}
