import { describe, expect, it } from 'vitest';
import { deciderSpecification } from '#warden/kernel';
import { itemDecider, type SubmitItemVersion } from './item.decider.js';

const submit = (overrides: Partial<SubmitItemVersion> = {}): SubmitItemVersion => ({
  type: 'SubmitItemVersion',
  item: { id: 'p1', typeId: 'post', data: { text: 'hello', author: { id: 'u1', typeId: 'user' } } },
  creator: { id: 'u1', typeId: 'user' },
  source: 'items',
  ...overrides,
});

const spec = deciderSpecification(itemDecider);

describe('item decider', () => {
  it('records a first version with its data sealed under the creator', () => {
    spec
      .given([])
      .when(submit())
      .then([
        {
          type: 'ItemSubmitted',
          data: {
            itemId: 'p1',
            typeId: 'post',
            typeVersion: null,
            typeSchemaVariant: 'original',
            data: { text: 'hello', author: { id: 'u1', typeId: 'user' } },
            creator: { id: 'u1', typeId: 'user' },
            subject: 'user:u1',
            source: 'items',
          },
        },
      ]);
  });

  it('seals an item without a creator under the item itself, and keeps its type version and variant', () => {
    const [event] = spec
      .given([])
      .when(
        submit({
          item: { id: 'p1', typeId: 'post', data: { text: 'hi' }, typeVersion: 'v3', typeSchemaVariant: 'partial' },
          creator: null,
          source: 'content',
        }),
      )
      .events();
    expect(event!.data).toMatchObject({ creator: null, subject: 'post:p1', typeVersion: 'v3', typeSchemaVariant: 'partial', source: 'content' });
  });

  it('accepts every further version, the same whatever came before (so the handler need not read the stream)', () => {
    const first = spec.given([]).when(submit()).events();
    const history = [
      ...first,
      ...spec
        .given(first)
        .when(submit({ item: { id: 'p1', typeId: 'post', data: { text: 'edited' } } }))
        .events(),
    ];
    expect(spec.given(history).state).toEqual({ versions: 2 });
    spec.given(history).when(submit()).then(spec.given([]).when(submit()).events());
  });
});
