import { expect } from 'vitest';

/** Asserts the error body (docs/api.md, "Errors"), the status and the request id echo. */
export async function expectErrorBody(response: Response, status: number, type: string, pointer?: string): Promise<Record<string, unknown>> {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  const requestId = response.headers.get('x-request-id');
  expect(requestId).toBeTruthy();
  const body = (await response.json()) as { errors: Array<Record<string, unknown>> };
  expect(body.errors.length).toBeGreaterThan(0);
  const first = body.errors[0]!;
  expect(first['status']).toBe(status);
  expect(first['type']).toEqual([type]);
  expect(typeof first['title']).toBe('string');
  expect(first['requestId']).toBe(requestId);
  if (pointer !== undefined) expect(first['pointer']).toBe(pointer);
  expect(JSON.stringify(body)).not.toMatch(/\bat .*\.js:\d+/);
  return first;
}
