import { describe, expect, it } from 'vitest';
import { foldEvents } from '#warden/kernel';
import { type ItemEvent, itemDecider, type SubmitItemVersion } from './item.decider.js';

const submit = (overrides: Partial<SubmitItemVersion> = {}): SubmitItemVersion => ({
  type: 'SubmitItemVersion',
  item: { id: 'p1', typeId: 'post', data: { text: 'hello', author: { id: 'u1', typeId: 'user' } } },
  creator: { id: 'u1', typeId: 'user' },
  source: 'items',
  ...overrides,
});

/** Given events, when a command, then the events it decides. */
function given(events: ItemEvent[]) {
  const state = foldEvents(itemDecider, events);
  return { state, when: (command: SubmitItemVersion) => itemDecider.decide(command, state) };
}

describe('item decider', () => {
  it('records a first version with its data sealed under the creator', () => {
    expect(given([]).when(submit())).toEqual([
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
    const [event] = given([]).when(
      submit({
        item: { id: 'p1', typeId: 'post', data: { text: 'hi' }, typeVersion: 'v3', typeSchemaVariant: 'partial' },
        creator: null,
        source: 'content',
      }),
    );
    expect(event!.data).toMatchObject({ creator: null, subject: 'post:p1', typeVersion: 'v3', typeSchemaVariant: 'partial', source: 'content' });
  });

  it('accepts every further version, the same whatever came before (so the handler need not read the stream)', () => {
    const first = given([]).when(submit());
    const history = [...first, ...given(first).when(submit({ item: { id: 'p1', typeId: 'post', data: { text: 'edited' } } }))];
    expect(given(history).state).toEqual({ versions: 2 });
    expect(given(history).when(submit())).toEqual(given([]).when(submit()));
  });
});
