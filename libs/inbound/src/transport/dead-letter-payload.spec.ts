import { describe, expect, it } from 'vitest';
import type { ErrorBodyItem } from '#warden/kernel';
import { deadLetterPayload } from './dead-letter-payload.js';

const entry = (pointer: string): ErrorBodyItem => ({
  status: 400,
  type: ['/errors/invalid-user-input'],
  title: 'Invalid field',
  detail: 'expected a URL',
  pointer,
});

describe('deadLetterPayload', () => {
  it('publishes the body whole when it fits', () => {
    const body = { errors: [entry('/items/0/data/images/0'), entry('/items/0/data/images/1')] };
    expect(JSON.parse(deadLetterPayload(body, 1024 * 1024))).toEqual(body);
  });

  it('cuts a body over the limit to the entries that fit, with one that counts the rest, and stays within the limit', () => {
    const long = '/items/0/data/' + 'x'.repeat(20_000);
    const body = { errors: Array.from({ length: 100 }, (_, i) => entry(`${long}/${i}`)) };
    expect(JSON.stringify(body).length).toBeGreaterThan(2_000_000);
    const payload = deadLetterPayload(body, 16 * 1024);
    expect(Buffer.byteLength(payload)).toBeLessThanOrEqual(16 * 1024);
    const { errors } = JSON.parse(payload) as { errors: ErrorBodyItem[] };
    expect(errors.length).toBeGreaterThan(1);
    expect(errors[0]!.pointer).toMatch(/^\/items\/0\/data\/x+…$/);
    expect(errors[0]!.pointer!.length).toBe(512);
    expect(errors.at(-1)).toMatchObject({
      status: 400,
      title: 'More problems',
      detail: `${100 - (errors.length - 1)} more entries not listed: the dead letter was cut to what the broker takes`,
    });
  });

  it('keeps within the limit when not even one entry fits beside the closing one', () => {
    const body = { errors: [entry('/' + 'y'.repeat(5_000))] };
    const payload = deadLetterPayload(body, 300);
    expect(Buffer.byteLength(payload)).toBeLessThanOrEqual(300);
    expect(JSON.parse(payload)).toEqual({ errors: [expect.objectContaining({ title: 'More problems', detail: expect.stringMatching(/^1 more entry/) })] });
  });
});
