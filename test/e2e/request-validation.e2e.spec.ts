import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHOP_ORG, writeConfig } from '../support/config-files.js';
import { freshDataDir, type RunningWarden, startConfigured, testEnv } from '../support/warden-process.js';

const CONFIG = SHOP_ORG;

type Problem = [pointer: string | undefined, title: string, detail: string | undefined];

/** Request bodies and query strings of /api/v1 against the real server: bad input is a 400 naming each field, never a 500. */
describe('request validation, end to end', () => {
  const env = testEnv(freshDataDir());
  let warden: RunningWarden;
  let key: string;

  beforeAll(async () => {
    // The configuration and the key in one CLI process (runCliBatch), before the server starts.
    ({ warden, key } = await startConfigured(env, writeConfig(CONFIG), 'shop'));
  });
  afterAll(async () => {
    await warden?.stop();
  });

  const send = (path: string, body?: string) =>
    fetch(warden.url + path, {
      method: 'POST',
      headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body }),
    });
  const problems = async (res: Response): Promise<Problem[]> => {
    expect(res.status).toBe(400);
    const body = (await res.json()) as { errors: Array<{ status: number; type: string[]; pointer?: string; title: string; detail?: string }> };
    expect(body.errors.every((e) => e.status === 400 && e.type[0] === '/errors/invalid-user-input')).toBe(true);
    return body.errors.map((e) => [e.pointer, e.title, e.detail]);
  };
  const post = (id: string) => ({ id, typeId: 'post', data: { text: 'hello', author: { id: 'u1', typeId: 'user' } } });

  it('reports a body that is missing, not an object, or without a usable items list', async () => {
    expect(await problems(await send('/api/v1/items/async'))).toEqual([['/items', 'Invalid request', 'items must be an array']]);
    expect(await problems(await send('/api/v1/items/async', 'null'))).toEqual([['', 'Invalid request', 'expected a JSON object']]);
    expect(await problems(await send('/api/v1/items/async', '[]'))).toEqual([['', 'Invalid request', 'expected a JSON object']]);
    expect(await problems(await send('/api/v1/items/async', '"items"'))).toEqual([['', 'Invalid request', 'expected a JSON object']]);
    expect(await problems(await send('/api/v1/items/async', '{"items":{"0":{}}}'))).toEqual([['/items', 'Invalid request', 'items must be an array']]);
    expect(await problems(await send('/api/v1/items/async', '{"items":[]}'))).toEqual([['/items', 'Invalid request', 'items must not be empty']]);
  });

  it('points at each item that is no object and at each wrongly typed field of an item', async () => {
    const body = { items: [post('ok'), 5, null, [post('nested')], { id: 7, typeId: '', data: 'text', typeVersion: 2, typeSchemaVariant: 'full' }] };
    expect(await problems(await send('/api/v1/items/async', JSON.stringify(body)))).toEqual([
      ['/items/1', 'Invalid item', 'expected an object'],
      ['/items/2', 'Invalid item', 'expected an object'],
      ['/items/3', 'Invalid item', 'expected an object'],
      ['/items/4/id', 'Invalid item', 'expected a non-empty string'],
      ['/items/4/typeId', 'Invalid item', 'expected a non-empty string'],
      ['/items/4/data', 'Invalid item', 'expected a JSON object'],
      ['/items/4/typeVersion', 'Invalid item', 'expected a string'],
      ['/items/4/typeSchemaVariant', 'Invalid item', "expected 'original' or 'partial'"],
    ]);
  });

  it('checks the data of well-formed items against their item type, after the shape', async () => {
    const body = { items: [post('a'), { id: 'b', typeId: 'post', data: { author: 'u1' } }, { id: 'c', typeId: 'gone', data: {} }] };
    expect(await problems(await send('/api/v1/items/async', JSON.stringify(body)))).toEqual([
      ['/items/1/data/text', 'Invalid item', 'required field is missing'],
      ['/items/1/data/author', 'Invalid item', 'expected an object {id, typeId}'],
      ['/items/2/typeId', 'Invalid item', "unknown item type 'gone'"],
    ]);
  });

  it('ignores properties the API does not define', async () => {
    const item = { ...post('extra'), unknown: true };
    const res = await send('/api/v1/items/async', JSON.stringify({ items: [item], more: 'ignored' }));
    expect(res.status).toBe(202);
    expect(((await res.json()) as { accepted: number }).accepted).toBe(1);
  });

  it('validates the legacy content body field by field, null included', async () => {
    const body = { contentId: '', contentType: 5, content: [], userId: null, sync: 'yes' };
    expect(await problems(await send('/api/v1/content', JSON.stringify(body)))).toEqual([
      ['/contentId', 'Invalid request', 'expected a non-empty string'],
      ['/contentType', 'Invalid request', 'expected a non-empty string'],
      ['/content', 'Invalid request', 'expected an object'],
      ['/userId', 'Invalid request', 'expected a non-empty string'],
      ['/sync', 'Invalid request', 'expected a boolean'],
    ]);
    const ok = await send('/api/v1/content', JSON.stringify({ contentId: 'c1', contentType: 'post', content: { text: 'hi' }, extra: 1 }));
    expect(ok.status).toBe(202);
  });

  it('validates query strings, one error per parameter, and ignores unknown ones', async () => {
    const get = (query: string) => fetch(`${warden.url}/api/v1/callbacks/deliveries${query}`, { headers: { 'x-api-key': key } });
    expect(await problems(await get('?limit=ten&offset=-1&status=lost'))).toEqual([
      ['/status', 'Invalid request', 'status must be one of pending, failed, dead, delivered'],
      ['/limit', 'Invalid request', 'limit must be a whole number, in decimal digits'],
      ['/offset', 'Invalid request', 'offset must be at least 0'],
    ]);
    expect(await problems(await get('?limit=1&limit=2'))).toEqual([['/limit', 'Invalid request', 'limit must be a whole number, in decimal digits']]);
    expect(await problems(await get('?limit=1e1'))).toEqual([['/limit', 'Invalid request', 'limit must be a whole number, in decimal digits']]);
    expect((await get('?limit=5&colour=red')).status).toBe(200);
  });
});
