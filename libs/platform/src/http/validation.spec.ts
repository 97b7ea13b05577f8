import 'reflect-metadata';
import { type ArgumentMetadata, ValidationPipe } from '@nestjs/common';
import { Allow } from 'class-validator';
import { describe, expect, it, vi } from 'vitest';
import { DomainError } from '#warden/kernel';
import { createValidationPipe, validationErrorDetails } from './validation.js';
import {
  AsReceived,
  ErrorTitle,
  IsBooleanValue,
  IsJsonObject,
  IsNonEmptyArray,
  IsNonEmptyString,
  NestedDtoArray,
  QueryInteger,
  WhenPresent,
} from './validation-rules.decorator.js';

@ErrorTitle('Invalid part')
class PartDto {
  @IsNonEmptyString()
  id!: string;

  @IsJsonObject()
  @AsReceived()
  data!: Record<string, unknown>;

  @WhenPresent()
  @IsNonEmptyArray()
  @NestedDtoArray(() => PartDto)
  parts?: PartDto[];
}

class OrderDto {
  @IsNonEmptyArray(3)
  @NestedDtoArray(() => PartDto)
  parts!: PartDto[];

  @WhenPresent()
  @IsBooleanValue()
  'rush/order~now'?: boolean;
}

class PageDto {
  @WhenPresent()
  @QueryInteger(1, 100)
  limit?: number;
}

/** Checked as a whole by its handler: every property allowed and kept as received. */
class ReportLikeDto {
  @Allow()
  @AsReceived()
  reporter!: unknown;

  @Allow()
  @AsReceived()
  item!: unknown;

  @Allow()
  @AsReceived()
  note?: unknown;
}

/** The same, and one property with a rule of its own: the pipe validates it as usual. */
class ReportWithRuleDto extends ReportLikeDto {
  @IsNonEmptyString()
  @AsReceived()
  id!: string;
}

const pipe = createValidationPipe();
const body = (metatype: ArgumentMetadata['metatype']): ArgumentMetadata => ({ type: 'body', metatype });

async function problems(value: unknown, metadata: ArgumentMetadata = body(OrderDto)) {
  try {
    await pipe.transform(value, metadata);
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    const e = error as DomainError;
    expect(e.status).toBe(400);
    expect(e.type).toBe('/errors/invalid-user-input');
    return e.details.map((d) => [d.pointer, d.title, d.detail]);
  }
  throw new Error('the value was accepted');
}

const part = (id: string, extra: Record<string, unknown> = {}) => ({ id, data: { text: 'x' }, ...extra });

describe('request validation', () => {
  it('points at each failing field inside nested arrays, with the title of the DTO that holds it', async () => {
    expect(await problems({ parts: [part('a'), part(''), part('c', { parts: [part('d'), { id: 'e', data: [] }] })] })).toEqual([
      ['/parts/1/id', 'Invalid part', 'expected a non-empty string'],
      ['/parts/2/parts/1/data', 'Invalid part', 'expected a JSON object'],
    ]);
  });

  it('reports an element that is no object at its own index, arrays included', async () => {
    expect(await problems({ parts: [5, null, [part('x')]] })).toEqual([
      ['/parts/0', 'Invalid part', 'expected an object'],
      ['/parts/1', 'Invalid part', 'expected an object'],
      ['/parts/2', 'Invalid part', 'expected an object'],
    ]);
  });

  it('validates with a rule added to a class after the class was first validated (kept rules are forgotten then)', async () => {
    class LateRulesDto {
      @WhenPresent()
      @IsBooleanValue()
      flag?: boolean;

      name?: string;
    }
    await expect(pipe.transform({ flag: true }, body(LateRulesDto))).resolves.toBeInstanceOf(LateRulesDto);
    // As a decorator does when a class is defined.
    IsNonEmptyString()(LateRulesDto.prototype, 'name');
    expect(await problems({ flag: true }, body(LateRulesDto))).toEqual([['/name', 'Invalid request', 'expected a non-empty string']]);
  });

  it('escapes property names per RFC 6901', async () => {
    expect(await problems({ parts: [part('a')], 'rush/order~now': 'yes' })).toEqual([['/rush~1order~0now', 'Invalid request', 'expected a boolean']]);
  });

  it('gives one error per field: the first rule that fails', async () => {
    expect(await problems({ parts: 5 })).toEqual([['/parts', 'Invalid request', 'parts must be an array']]);
    expect(await problems({ parts: [] })).toEqual([['/parts', 'Invalid request', 'parts must not be empty']]);
    expect(await problems({ parts: [part('a'), part('b'), part('c'), part('d')] })).toEqual([
      ['/parts', 'Invalid request', 'parts must have at most 3 elements'],
    ]);
  });

  it('checks an optional field that is present as null', async () => {
    expect(await problems({ parts: [part('a')], 'rush/order~now': null })).toEqual([['/rush~1order~0now', 'Invalid request', 'expected a boolean']]);
  });

  it('reports each required field of a missing body, and the whole body when it is not an object', async () => {
    expect(await problems(undefined)).toEqual([['/parts', 'Invalid request', 'parts must be an array']]);
    expect(await problems([part('a')])).toEqual([['', 'Invalid request', 'expected a JSON object']]);
    expect(await problems('parts')).toEqual([['', 'Invalid request', 'expected a JSON object']]);
  });

  it('refuses a missing body where every field is optional (a PUT without one would reset everything), after reporting required fields', async () => {
    expect(await problems(undefined, body(PageDto))).toEqual([['', 'Invalid request', 'a JSON object is required (send {} for the defaults)']]);
  });

  it('refuses a body of JSON null as a whole, also where every field is optional (it is not a missing body)', async () => {
    expect(await problems(null)).toEqual([['', 'Invalid request', 'expected a JSON object']]);
    expect(await problems(null, body(PageDto))).toEqual([['', 'Invalid request', 'expected a JSON object']]);
  });

  it('drops unknown properties but keeps free-form data exactly as received', async () => {
    const data = { text: 'x', nested: { anything: [1, { deep: true }] } };
    const dto = (await pipe.transform({ parts: [{ id: 'a', data, extra: 1 }], unknown: 'y' }, body(OrderDto))) as OrderDto;
    expect(dto).toBeInstanceOf(OrderDto);
    expect(dto.parts[0]).toBeInstanceOf(PartDto);
    expect(dto).toEqual({ parts: [{ id: 'a', data }] });
    expect(dto.parts[0]!.data).toBe(data);
  });

  it('keeps a body checked by its handler as received: its own properties only, the same values, none added', async () => {
    const reporter = { kind: 'user', id: 'u1', extra: [1, { deep: true }] };
    const item = ['not', 'an', 'object', null];
    for (let i = 0; i < 2; i++) {
      const dto = (await pipe.transform({ reporter, item, unknown: 'y', __proto__x: 1 }, body(ReportLikeDto))) as ReportLikeDto;
      expect(dto).toBeInstanceOf(ReportLikeDto);
      expect(Object.keys(dto).sort()).toEqual(['item', 'reporter']);
      expect(dto.reporter).toBe(reporter);
      expect(dto.item).toBe(item);
    }
    expect(await pipe.transform({}, body(ReportLikeDto))).toEqual({});
    // As on the full path: prototype-pollution keys go, at any depth of what is kept.
    const polluted = JSON.parse('{"reporter":{"id":"u","constructor":{"a":1},"prototype":"p","nested":[{"constructor":1,"k":2}]},"constructor":"y"}') as object;
    const cleaned = (await pipe.transform(polluted, body(ReportLikeDto))) as ReportLikeDto;
    expect(JSON.stringify(cleaned)).toBe('{"reporter":{"id":"u","nested":[{"k":2}]}}');
    const slow = (await pipe.transform(
      JSON.parse('{"id":"r","reporter":{"id":"u","constructor":{"a":1},"prototype":"p","nested":[{"constructor":1,"k":2}]}}'),
      body(ReportWithRuleDto),
    )) as ReportWithRuleDto;
    expect(JSON.stringify(slow.reporter)).toBe(JSON.stringify(cleaned.reporter));
    // Still a whole-body error: not an object.
    expect(await problems([1], body(ReportLikeDto))).toEqual([['', 'Invalid request', 'expected a JSON object']]);
    // A property with a rule of its own (here in a subclass) is checked as usual.
    expect((await problems({ reporter }, body(ReportWithRuleDto))).map(([pointer]) => pointer)).toEqual(['/id']);
    const checked = (await pipe.transform({ id: 'r1', reporter, extra: 1 }, body(ReportWithRuleDto))) as ReportWithRuleDto;
    expect(checked).toEqual({ id: 'r1', reporter });
    expect(checked.reporter).toBe(reporter);
  });

  it('converts and checks query-string numbers', async () => {
    const query: ArgumentMetadata = { type: 'query', metatype: PageDto };
    expect(await pipe.transform({ limit: '20', other: 'x' }, query)).toEqual({ limit: 20 });
    expect(await problems({ limit: 'ten' }, query)).toEqual([['/limit', 'Invalid request', 'limit must be a whole number, in decimal digits']]);
    // Number() reads these as 1000, 16, 5 and 0: each was taken for another page size.
    for (const written of ['1e3', '0x10', ' 5', '', '5.0', '+5'])
      expect(await problems({ limit: written }, query)).toEqual([['/limit', 'Invalid request', 'limit must be a whole number, in decimal digits']]);
    expect(await pipe.transform({ limit: '007' }, query)).toEqual({ limit: 7 });
    expect(await problems({ limit: '0' }, query)).toEqual([['/limit', 'Invalid request', 'limit must be at least 1']]);
    expect(await problems({ limit: '101' }, query)).toEqual([['/limit', 'Invalid request', 'limit must be at most 100']]);
  });

  it('maps a hand-built error tree: every constraint of every level, pointers joined and escaped', () => {
    const tree = [
      {
        property: 'a/b',
        constraints: { x: 'bad a/b' },
        children: [{ property: '0', children: [{ property: 'c~d', constraints: { y: 'bad c~d' }, children: [] }] }],
      },
    ];
    expect(validationErrorDetails(tree)).toEqual([
      { title: 'Invalid request', detail: 'bad a/b', pointer: '/a~1b' },
      { title: 'Invalid request', detail: 'bad c~d', pointer: '/a~1b/0/c~0d' },
    ]);
  });

  it('transforms a body in steps linear in its members: no search of a member list per member (issue 30)', async () => {
    // class-transformer removed duplicate names with one indexOf over the list per name: n²/2
    // element comparisons for an object of n members. Counted, not timed: every element an
    // indexOf looks at during the transformation.
    const n = 20_000;
    const wide = Object.fromEntries(Array.from({ length: n }, (_, i) => [`m${i}`, i]));
    const original = Array.prototype.indexOf;
    let looked = 0;
    Array.prototype.indexOf = function (this: unknown[], ...args: Parameters<typeof original>) {
      const found = original.apply(this, args);
      looked += found === -1 ? this.length : found + 1;
      return found;
    };
    let order: OrderDto;
    try {
      order = (await pipe.transform({ parts: [{ id: 'a', data: wide }], ...wide }, body(OrderDto))) as OrderDto;
    } finally {
      Array.prototype.indexOf = original;
    }
    expect(looked).toBeLessThan(10 * n);
    // The same result as before: the DTO's own members kept, the unknown ones dropped, data as sent.
    expect(order).toBeInstanceOf(OrderDto);
    expect(Object.keys(order)).toEqual(['parts']);
    expect(order.parts[0]).toBeInstanceOf(PartDto);
    expect(Object.keys(order.parts[0]!.data)).toHaveLength(n);
    expect(order.parts[0]!.data['m19999']).toBe(19_999);
  });

  it("walks a JSON body once with plain checks, and leaves anything else to Nest's own walks (sparse arrays, class instances)", async () => {
    // The two walks are protected: reached through the prototype as a plain object.
    const walks = ValidationPipe.prototype as unknown as { closeArrayGaps(value: unknown): void; stripProtoKeys(value: unknown): void };
    const nest = { gaps: vi.spyOn(walks, 'closeArrayGaps'), proto: vi.spyOn(walks, 'stripProtoKeys') };
    try {
      const json = JSON.parse('{"parts":[{"id":"a","data":{"k":[1,{"constructor":2,"v":3}]},"prototype":1}],"constructor":{"x":1}}') as object;
      const order = (await pipe.transform(json, body(OrderDto))) as OrderDto;
      expect(JSON.stringify(order)).toBe('{"parts":[{"id":"a","data":{"k":[1,{"v":3}]}}]}');
      expect(nest.gaps).not.toHaveBeenCalled();
      expect(nest.proto).not.toHaveBeenCalled();

      // Not JSON's: a sparse array (as a form parser may build) and a class instance go to Nest's walks.
      // eslint-disable-next-line no-sparse-arrays -- the gap is the point
      const sparse = { parts: [{ id: 'a', data: { k: [, 1] } }] };
      const closed = (await pipe.transform(sparse, body(OrderDto))) as OrderDto;
      expect(closed.parts[0]!.data['k']).toEqual([1]);
      expect(nest.gaps).toHaveBeenCalledTimes(1);
      await pipe.transform({ parts: [{ id: 'a', data: { at: new Date(0) } }] }, body(OrderDto));
      expect(nest.gaps).toHaveBeenCalledTimes(2);
      // Once its gaps are closed the sparse body is plain: only the Date's went to Nest's stripping.
      expect(nest.proto).toHaveBeenCalledTimes(1);
    } finally {
      nest.gaps.mockRestore();
      nest.proto.mockRestore();
    }
  });

  it('answers a DTO given a primitive (a query value) with the pipe’s 400, not a failure of its own', async () => {
    const problem = await pipe.transform('abc', { type: 'query', metatype: PageDto }).catch((e: unknown) => e);
    expect(problem).toBeInstanceOf(DomainError);
  });
});
