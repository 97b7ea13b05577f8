import { describe, expect, it } from 'vitest';
import type { FieldDefinition, FieldType, ItemTypeDefinition } from './catalog.model.js';
import { parseIsoInstant, validateItem, type ItemProblem, type SubmittedItem } from './item-validation.js';

function field(name: string, type: FieldType, extra: Partial<FieldDefinition> = {}): FieldDefinition {
  return { name, type, required: false, array: false, itemTypeIds: [], ...extra };
}

const post: ItemTypeDefinition = {
  id: 'post',
  name: 'Post',
  kind: 'CONTENT',
  version: '2',
  fields: [
    field('text', 'STRING', { required: true }),
    field('likes', 'NUMBER'),
    field('edited', 'BOOLEAN'),
    field('photo', 'IMAGE'),
    field('gallery', 'IMAGE', { array: true }),
    field('voice', 'AUDIO'),
    field('clip', 'VIDEO'),
    field('link', 'URL'),
    field('location', 'GEOHASH'),
    field('createdAt', 'DATETIME'),
    field('author', 'RELATED_ITEM', { required: true, itemTypeIds: ['user'] }),
    field('mentions', 'RELATED_ITEM', { array: true }),
    field('tags', 'STRING', { array: true }),
    field('a/b~c', 'NUMBER'),
  ],
  roles: { creator: 'author', createdAt: 'createdAt' },
};

const knownItemTypeIds: ReadonlySet<string> = new Set(['post', 'user', 'thread']);
const options = { pointer: '/items/3', knownItemTypeIds };

function validData(): Record<string, unknown> {
  return {
    text: 'hello',
    likes: 3.5,
    edited: false,
    photo: 'https://cdn.example/a.jpg',
    gallery: ['https://cdn.example/1.png', 'http://cdn.example/2.png?x=1'],
    voice: 'https://cdn.example/a.mp3',
    clip: 'https://cdn.example/a.mp4',
    link: 'http://example.com/path#frag',
    location: 'u4pruydqqvj',
    createdAt: '2026-01-02T03:04:05Z',
    author: { id: 'u1', typeId: 'user' },
    mentions: [
      { id: 'u2', typeId: 'user' },
      { id: 't1', typeId: 'thread' },
    ],
    tags: ['a', 'b'],
    'a/b~c': 1,
  };
}

function validItem(data: Record<string, unknown> = validData()): SubmittedItem {
  return { id: 'p1', typeId: 'post', data };
}

/** Validates a valid item whose `data` has `overrides` applied (`undefined` removes a field). */
function withData(overrides: Record<string, unknown>, item: Partial<SubmittedItem> = {}): ItemProblem[] {
  const data = validData();
  for (const [key, value] of Object.entries(overrides)) {
    if (value === undefined) delete data[key];
    else data[key] = value;
  }
  return validateItem({ ...validItem(data), ...item }, post, options);
}

function pointers(problems: ItemProblem[]): string[] {
  return problems.map((p) => p.pointer);
}

describe('validateItem', () => {
  it('accepts a valid item', () => {
    expect(validateItem(validItem(), post, options)).toEqual([]);
    expect(validateItem({ ...validItem(), typeVersion: '1', typeSchemaVariant: 'original' }, post, options)).toEqual([]);
  });

  it('accepts a typeVersion different from the type version, but only as a string', () => {
    expect(validateItem({ ...validItem(), typeVersion: '99' }, post, options)).toEqual([]);
    expect(validateItem({ ...validItem(), typeVersion: 2 }, post, options)).toEqual([{ pointer: '/items/3/typeVersion', detail: 'expected a string' }]);
  });

  it('checks id and typeId', () => {
    expect(validateItem({ ...validItem(), id: '' }, post, options)).toEqual([{ pointer: '/items/3/id', detail: 'expected a non-empty string' }]);
    expect(validateItem({ ...validItem(), id: 7 }, post, options)).toEqual([{ pointer: '/items/3/id', detail: 'expected a non-empty string' }]);
    expect(validateItem({ ...validItem(), typeId: undefined }, undefined, options)).toEqual([
      { pointer: '/items/3/typeId', detail: 'expected a non-empty string' },
    ]);
  });

  it('holds id, typeId and the ids of related items to the rule for ids that become stream names and keys', () => {
    expect(validateItem({ ...validItem(), id: 'bad\udc00', typeId: 'po\u0000st' }, undefined, options)).toEqual([
      { pointer: '/items/3/id', detail: 'expected well-formed Unicode, got a lone UTF-16 surrogate' },
      { pointer: '/items/3/typeId', detail: 'expected no control characters' },
    ]);
    expect(validateItem({ ...validItem(), id: 'x'.repeat(257) }, post, options)).toEqual([
      { pointer: '/items/3/id', detail: 'expected at most 256 characters, got 257' },
    ]);
    expect(withData({ author: { id: 'u\ud800', typeId: 'user' }, mentions: [{ id: 'm\n', typeId: 'user' }] })).toEqual([
      { pointer: '/items/3/data/author/id', detail: 'expected well-formed Unicode, got a lone UTF-16 surrogate' },
      { pointer: '/items/3/data/mentions/0/id', detail: 'expected no control characters' },
    ]);
  });

  it('reports an unknown item type, and still checks what does not depend on the type', () => {
    expect(validateItem({ ...validItem(), typeId: 'nope' }, undefined, options)).toEqual([{ pointer: '/items/3/typeId', detail: "unknown item type 'nope'" }]);
    expect(validateItem({ id: 'x', typeId: 'nope', data: { images: ['ftp://x/y'] } }, undefined, options)).toEqual([
      { pointer: '/items/3/typeId', detail: "unknown item type 'nope'" },
      { pointer: '/items/3/data/images/0', detail: 'expected an absolute http(s) URL' },
    ]);
  });

  it('requires data to be a JSON object', () => {
    for (const data of [undefined, null, [], 'text', 3]) {
      expect(validateItem({ id: 'p1', typeId: 'post', data }, post, options)).toEqual([{ pointer: '/items/3/data', detail: 'expected a JSON object' }]);
    }
  });

  it('rejects a bad typeSchemaVariant', () => {
    expect(validateItem({ ...validItem(), typeSchemaVariant: 'full' }, post, options)).toEqual([
      { pointer: '/items/3/typeSchemaVariant', detail: "expected 'original' or 'partial'" },
    ]);
    expect(validateItem({ ...validItem(), typeSchemaVariant: null }, post, options)).toEqual([
      { pointer: '/items/3/typeSchemaVariant', detail: "expected 'original' or 'partial'" },
    ]);
  });

  describe('required fields', () => {
    it('reports missing or null required fields', () => {
      expect(withData({ text: undefined, author: null })).toEqual([
        { pointer: '/items/3/data/text', detail: 'required field is missing' },
        { pointer: '/items/3/data/author', detail: 'required field is missing' },
      ]);
    });

    it("does not require them when typeSchemaVariant is 'partial'", () => {
      expect(withData({ text: undefined, author: null }, { typeSchemaVariant: 'partial' })).toEqual([]);
      // a present value is still checked
      expect(withData({ text: 5, author: undefined }, { typeSchemaVariant: 'partial' })).toEqual([
        { pointer: '/items/3/data/text', detail: 'expected a string' },
      ]);
    });

    it("treats an invalid variant as 'original'", () => {
      expect(pointers(withData({ text: undefined }, { typeSchemaVariant: 'PARTIAL' }))).toEqual(['/items/3/data/text', '/items/3/typeSchemaVariant']);
    });

    it('accepts null for an optional field', () => {
      expect(withData({ likes: null, gallery: null })).toEqual([]);
    });
  });

  describe('formats', () => {
    it('STRING', () => {
      expect(withData({ text: '' })).toEqual([]);
      expect(withData({ text: 42 })).toEqual([{ pointer: '/items/3/data/text', detail: 'expected a string' }]);
    });

    it('NUMBER', () => {
      expect(withData({ likes: -7 })).toEqual([]);
      expect(withData({ likes: '7' })).toEqual([{ pointer: '/items/3/data/likes', detail: 'expected a number' }]);
      expect(withData({ likes: Number.NaN })).toEqual([{ pointer: '/items/3/data/likes', detail: 'expected a number' }]);
      expect(withData({ likes: Infinity })).toEqual([{ pointer: '/items/3/data/likes', detail: 'expected a number' }]);
    });

    it('BOOLEAN', () => {
      expect(withData({ edited: true })).toEqual([]);
      expect(withData({ edited: 'true' })).toEqual([{ pointer: '/items/3/data/edited', detail: 'expected a boolean' }]);
    });

    it.each([
      ['photo', 'IMAGE'],
      ['voice', 'AUDIO'],
      ['clip', 'VIDEO'],
      ['link', 'URL'],
    ])('%s (%s) takes an absolute http(s) URL', (name) => {
      expect(withData({ [name]: 'HTTPS://Example.com:8443/a b?c=d' })).toEqual([]);
      expect(withData({ [name]: 'http://localhost' })).toEqual([]);
      for (const bad of [
        'ftp://example.com/a',
        'javascript:alert(1)',
        'data:image/png;base64,AAAA',
        '/relative/path.jpg',
        'example.com/a.jpg',
        'http:example.com',
        'https:\\\\example.com',
        ' https://example.com',
        'https://',
        'http://exa mple.com',
        '',
        42,
      ]) {
        expect(withData({ [name]: bad }), String(bad)).toEqual([{ pointer: `/items/3/data/${name}`, detail: 'expected an absolute http(s) URL' }]);
      }
    });

    it('GEOHASH', () => {
      expect(withData({ location: 'U4PRUYDQQVJ' })).toEqual([]);
      expect(withData({ location: '0' })).toEqual([]);
      expect(withData({ location: 'ezs42ezs42ez' })).toEqual([]);
      for (const bad of ['', 'u4pa', 'u4pi', 'u4pl', 'u4po', 'ezs42ezs42ezs', 'u4 p', 12]) {
        expect(withData({ location: bad }), String(bad)).toEqual([
          {
            pointer: '/items/3/data/location',
            detail: 'expected a geohash (1 to 12 characters of 0123456789bcdefghjkmnpqrstuvwxyz)',
          },
        ]);
      }
    });

    it('DATETIME', () => {
      for (const good of [
        '2026-01-02T03:04:05Z',
        '2026-01-02T03:04:05.123+02:00',
        '2026-01-02T03:04:05.123456-0530',
        '2026-01-02T03:04Z',
        '2026-01-02T23:59:59',
        '2024-02-29T00:00:00Z',
      ]) {
        expect(withData({ createdAt: good }), good).toEqual([]);
      }
      for (const bad of [
        '2026-01-02',
        '2026-13-02T03:04:05Z',
        '2026-00-02T03:04:05Z',
        '2026-02-30T03:04:05Z',
        '2025-02-29T00:00:00Z',
        '2026-01-02T24:00:00Z',
        '2026-01-02T03:60:00Z',
        '2026-01-02T03:04:05+25:00',
        '2026-01-02 03:04:05Z',
        '20260102T030405Z',
        'Fri, 02 Jan 2026 03:04:05 GMT',
        '2026-01-02T03:04:05Zjunk',
        1767323045000,
      ]) {
        expect(withData({ createdAt: bad }), String(bad)).toEqual([
          { pointer: '/items/3/data/createdAt', detail: 'expected an ISO 8601 datetime with a time part' },
        ]);
      }
    });

    it('RELATED_ITEM with itemTypeIds', () => {
      expect(withData({ author: { id: 'u9', typeId: 'user', extra: 1 } })).toEqual([]);
      expect(withData({ author: { id: 'p9', typeId: 'post' } })).toEqual([
        { pointer: '/items/3/data/author/typeId', detail: "item type 'post' is not allowed here (expected 'user')" },
      ]);
      expect(withData({ author: { id: '', typeId: 3 } })).toEqual([
        { pointer: '/items/3/data/author/id', detail: 'expected a non-empty string' },
        { pointer: '/items/3/data/author/typeId', detail: 'expected a non-empty string' },
      ]);
      expect(withData({ author: 'u1' })).toEqual([{ pointer: '/items/3/data/author', detail: 'expected an object {id, typeId}' }]);
      expect(withData({ author: [{ id: 'u1', typeId: 'user' }] })).toEqual([{ pointer: '/items/3/data/author', detail: 'expected an object {id, typeId}' }]);
    });

    it('RELATED_ITEM without itemTypeIds accepts any known item type', () => {
      expect(withData({ mentions: [{ id: 'p2', typeId: 'post' }] })).toEqual([]);
      expect(
        withData({
          mentions: [
            { id: 'u2', typeId: 'user' },
            { id: 'x', typeId: 'ghost' },
          ],
        }),
      ).toEqual([{ pointer: '/items/3/data/mentions/1/typeId', detail: "unknown item type 'ghost'" }]);
    });
  });

  describe('array fields', () => {
    it('require an array and check each element', () => {
      expect(withData({ tags: [] })).toEqual([]);
      expect(withData({ tags: 'a' })).toEqual([{ pointer: '/items/3/data/tags', detail: 'expected an array' }]);
      expect(withData({ tags: ['a', 1, 'b', null] })).toEqual([
        { pointer: '/items/3/data/tags/1', detail: 'expected a string' },
        { pointer: '/items/3/data/tags/3', detail: 'expected a string' },
      ]);
      expect(withData({ gallery: ['https://x.example/a', 'file:///etc/passwd'] })).toEqual([
        { pointer: '/items/3/data/gallery/1', detail: 'expected an absolute http(s) URL' },
      ]);
    });

    it('a single-valued field rejects an array', () => {
      expect(withData({ likes: [1] })).toEqual([{ pointer: '/items/3/data/likes', detail: 'expected a number' }]);
    });
  });

  describe('data.images', () => {
    it('must be an array of absolute http(s) URLs when the type does not declare it', () => {
      expect(withData({ images: ['https://cdn.example/a.jpg', 'http://cdn.example/b'] })).toEqual([]);
      expect(withData({ images: [] })).toEqual([]);
      expect(withData({ images: 'https://cdn.example/a.jpg' })).toEqual([{ pointer: '/items/3/data/images', detail: 'expected an array' }]);
      expect(withData({ images: ['https://cdn.example/a.jpg', 'a.jpg', 5] })).toEqual([
        { pointer: '/items/3/data/images/1', detail: 'expected an absolute http(s) URL' },
        { pointer: '/items/3/data/images/2', detail: 'expected an absolute http(s) URL' },
      ]);
    });

    it('is checked in its declared position when the type declares it', () => {
      const withImages: ItemTypeDefinition = {
        ...post,
        fields: [field('images', 'IMAGE', { array: true, required: true }), field('title', 'STRING')],
      };
      const check = (data: Record<string, unknown>) => validateItem({ id: 'p1', typeId: 'post', data }, withImages, options);
      expect(check({ images: ['https://cdn.example/a.jpg'] })).toEqual([]);
      expect(check({ title: 1 })).toEqual([
        { pointer: '/items/3/data/images', detail: 'required field is missing' },
        { pointer: '/items/3/data/title', detail: 'expected a string' },
      ]);
      expect(check({ images: ['nope'], title: 1 })).toEqual([
        { pointer: '/items/3/data/images/0', detail: 'expected an absolute http(s) URL' },
        { pointer: '/items/3/data/title', detail: 'expected a string' },
      ]);
    });

    it('stays an array of URLs even when declared otherwise', () => {
      const oddImages: ItemTypeDefinition = { ...post, fields: [field('images', 'STRING')] };
      expect(validateItem({ id: 'p1', typeId: 'post', data: { images: 'x' } }, oddImages, options)).toEqual([
        { pointer: '/items/3/data/images', detail: 'expected an array' },
      ]);
    });
  });

  it('accepts and ignores undeclared fields', () => {
    expect(withData({ extra: { anything: [1, 'two'] }, other: null, constructor: 5 })).toEqual([]);
  });

  it('does not read declared field values from the prototype chain', () => {
    const proto: ItemTypeDefinition = { ...post, fields: [field('constructor', 'STRING', { required: true })] };
    expect(validateItem({ id: 'p1', typeId: 'post', data: {} }, proto, options)).toEqual([
      { pointer: '/items/3/data/constructor', detail: 'required field is missing' },
    ]);
  });

  it('escapes field names in pointers (RFC 6901)', () => {
    expect(withData({ 'a/b~c': 'one' })).toEqual([{ pointer: '/items/3/data/a~1b~0c', detail: 'expected a number' }]);
  });

  it('uses the given pointer prefix, including the empty one', () => {
    expect(validateItem({ ...validItem(), id: null }, post, { pointer: '', knownItemTypeIds })).toEqual([
      { pointer: '/id', detail: 'expected a non-empty string' },
    ]);
  });

  it('reports every problem, in field order', () => {
    const problems = validateItem(
      {
        id: '',
        typeId: 'post',
        data: {
          ...validData(),
          text: undefined,
          likes: 'many',
          gallery: ['https://ok.example/1', 'nope'],
          location: 'aaaa',
          author: { id: 'u1', typeId: 'post' },
          images: 'x',
        },
        typeVersion: 3,
        typeSchemaVariant: 'other',
      },
      post,
      options,
    );
    expect(pointers(problems)).toEqual([
      '/items/3/id',
      '/items/3/data/text',
      '/items/3/data/likes',
      '/items/3/data/gallery/1',
      '/items/3/data/location',
      '/items/3/data/author/typeId',
      '/items/3/data/images',
      '/items/3/typeVersion',
      '/items/3/typeSchemaVariant',
    ]);
  });
});

describe('parseIsoInstant (query bounds)', () => {
  it("names the same instant whatever ISO 8601 notation the datetime uses, whatever the server's time zone", () => {
    const at = '2026-11-27T09:30:00.500Z';
    for (const text of [
      '2026-11-27T09:30:00.500Z',
      '2026-11-27T10:30:00,5+01:00',
      '2026-11-27T10:30:00.5+01',
      '2026-11-27T11:30:00.500+0200',
      '2026-11-27T09:30:00.5',
      '2026-11-27t09:30:00.500z',
    ]) {
      expect(parseIsoInstant(text)?.toISOString(), text).toBe(at);
    }
    expect(parseIsoInstant('2026-11-27T09:30')?.toISOString()).toBe('2026-11-27T09:30:00.000Z');
  });

  it('refuses what is no datetime: no time part, an impossible date, another type', () => {
    for (const value of ['2026-11-27', '2026-02-30T10:00:00Z', '2026-11-27T25:00:00Z', 'yesterday', '', 1764235800000, null]) {
      expect(parseIsoInstant(value), String(value)).toBeUndefined();
    }
  });
});
