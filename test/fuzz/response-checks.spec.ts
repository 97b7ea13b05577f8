import { describe, expect, it } from 'vitest';
import { BadUtf8, Deep, Huge, Id, Obj, Raw, renderJson } from './json-text.js';
import { errorBodyProblems, type Exchange, RequestSchemas, responseProblems } from './response-checks.js';
import { postOperations, readOpenApi } from './schema-arbitraries.js';

/** The fuzz suite's own checks and renderer: each must be able to fail, or the suite proves nothing. */
describe('the fuzz suite checks', () => {
  const doc = readOpenApi();
  const schemas = new RequestSchemas(doc, postOperations(doc));
  const items = (value: unknown) => Buffer.from(JSON.stringify(value));
  const exchange = (over: Partial<Exchange>): Exchange => ({
    token: 'FZ00000000N1Z',
    path: '/api/v1/items/async/',
    contentType: 'application/json',
    body: items({ items: [{ id: 'a', typeId: 'post', data: {} }] }),
    status: 202,
    headers: { 'content-type': 'application/json; charset=utf-8', 'x-request-id': 'FZ00000000N1Z' },
    responseText: '{"accepted":1}',
    ...over,
  });
  const error = (e: Record<string, unknown>) => JSON.stringify({ errors: [{ status: 400, type: ['/errors/invalid-user-input'], title: 'Invalid', ...e }] });

  it('accepts a success for a body that meets the schema, and a section 7 error', () => {
    expect(responseProblems(exchange({}), schemas)).toEqual([]);
    expect(responseProblems(exchange({ status: 400, responseText: error({ pointer: '/items/0/data/text', requestId: 'FZ00000000N1Z' }) }), schemas)).toEqual(
      [],
    );
  });

  it('flags a success for a body the schema refuses, that is not UTF-8, or was not sent as JSON', () => {
    expect(responseProblems(exchange({ body: items({ items: [] }) }), schemas)).toEqual([
      'accepted a body that does not meet the OpenAPI request schema: /items must NOT have fewer than 1 items',
    ]);
    expect(responseProblems(exchange({ body: Buffer.from([0x7b, 0xff, 0x7d]) }), schemas)).toEqual(['accepted a body that is not well-formed UTF-8 JSON']);
    expect(responseProblems(exchange({ contentType: 'text/plain' }), schemas)).toEqual(["accepted a body sent as 'text/plain'"]);
  });

  it('flags a 5xx, a wrong content type or request id, and every way an error body can leave section 7', () => {
    expect(responseProblems(exchange({ status: 500, responseText: error({ status: 500 }) }), schemas)).toContain('answered 500');
    expect(responseProblems(exchange({ headers: { 'content-type': 'text/html', 'x-request-id': 'other' } }), schemas)).toEqual([
      'X-Request-Id is other, not the one sent',
      "content type is 'text/html'",
    ]);
    expect(errorBodyProblems({ errors: [] }, 400, 't')).toEqual(['errors is not a non-empty array']);
    expect(errorBodyProblems({ errors: [{ status: 400 }], extra: 1 }, 400, 't')).toEqual(['error body is not {errors: [...]}']);
    expect(errorBodyProblems({ errors: [{ status: '400', type: '/x', title: '', pointer: 'items', requestId: 'u', code: 1 }] }, 400, 't')).toEqual([
      'errors[0] has fields outside section 7: code',
      'errors[0].status is "400", the response 400',
      'errors[0].type is not an array of strings',
      'errors[0].title is not a non-empty string',
      'errors[0].pointer "items" is not a JSON pointer',
      'errors[0].requestId is "u"',
    ]);
  });

  it('flags a pointer outside the body sent, and well-formed JSON called malformed', () => {
    const body = items({ items: [{ id: 'a' }] });
    const answer = (e: Record<string, unknown>) => responseProblems(exchange({ body, status: 400, responseText: error(e) }), schemas);
    expect(answer({ pointer: '/items/0/typeId' })).toEqual([]);
    expect(answer({ pointer: '/items/3/id' })).toEqual(['pointer /items/3/id is not in the body sent']);
    expect(answer({ title: 'Malformed JSON', detail: 'The request body is not valid JSON', pointer: '' })).toEqual([
      'well-formed JSON called malformed: Malformed JSON: The request body is not valid JSON',
    ]);
  });

  it("takes a pointer naming one of the operation's path parameters, and only those", () => {
    const answer = (pointer: string) =>
      responseProblems(
        exchange({
          path: '/api/v1/items/post/x%01/evaluations',
          operation: 'GET /api/v1/items/{typeId}/{id}/evaluations',
          body: items([]),
          status: 400,
          responseText: error({ pointer }),
        }),
        schemas,
      );
    expect(answer('/id')).toEqual([]);
    expect(answer('/typeId')).toEqual([]);
    expect(answer('/jobId')).toEqual(['pointer /jobId is not in the body sent']);
  });

  it('renders ids with the token, raw text as is, bad bytes as bytes, and sizes as sizes', () => {
    const body = renderJson(
      new Obj([
        ['id', new Id('x')],
        ['n', new Raw('1e400')],
        ['s', new BadUtf8('a', [0xff], 'b')],
        ['h', new Huge('é', 3)],
        ['d', new Deep(2, 'array', '\udc00')],
      ]),
      'T',
    );
    expect(body).toEqual(Buffer.concat([Buffer.from('{"id":"Tx","n":1e400,"s":"a'), Buffer.from([0xff]), Buffer.from('b","h":"ééé","d":[["\\udc00"]]}')]));
  });
});
