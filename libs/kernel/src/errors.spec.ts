import { describe, expect, it } from 'vitest';
import { errorBodyOf, invalidInput, MAX_LISTED_PROBLEMS } from './errors.js';

const problems = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ title: 'Invalid field', detail: 'expected a URL', pointer: `/items/0/data/images/${i}` }));

describe('errorBodyOf', () => {
  it('lists every problem, in order, up to the bound', () => {
    const body = errorBodyOf(invalidInput(...problems(MAX_LISTED_PROBLEMS)), 'req-1');
    expect(body.errors).toHaveLength(MAX_LISTED_PROBLEMS);
    expect(body.errors[0]).toEqual({
      status: 400,
      type: ['/errors/invalid-user-input'],
      title: 'Invalid field',
      detail: 'expected a URL',
      pointer: '/items/0/data/images/0',
      requestId: 'req-1',
    });
  });

  it('lists the first problems of a larger set and then one entry that counts the rest, so a small body never answers a large one', () => {
    const body = errorBodyOf(invalidInput(...problems(8_000)), undefined);
    expect(body.errors).toHaveLength(MAX_LISTED_PROBLEMS + 1);
    expect(body.errors[MAX_LISTED_PROBLEMS - 1]!.pointer).toBe(`/items/0/data/images/${MAX_LISTED_PROBLEMS - 1}`);
    expect(body.errors.at(-1)).toEqual({
      status: 400,
      type: ['/errors/invalid-user-input'],
      title: 'More problems',
      detail: `${8_000 - MAX_LISTED_PROBLEMS} more problems not listed: correct the ones above and send again`,
      pointer: '',
    });
    expect(JSON.stringify(body).length).toBeLessThan(20_000);
  });
});
