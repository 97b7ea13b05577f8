import { Readable } from 'node:stream';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OversizedSamlPost } from '../saml/saml-response-limits.js';
import { ACS_ROUTE, installSamlFormBodyParser } from './saml-form-body.parser.js';

const LIMIT = 1024;

describe('the ACS form parser', () => {
  let fastify: FastifyInstance;

  beforeAll(async () => {
    fastify = Fastify();
    installSamlFormBodyParser(fastify, LIMIT);
    const echo = async (request: { body: unknown }) =>
      request.body instanceof OversizedSamlPost ? { oversized: true } : { oversized: false, fields: request.body };
    fastify.post(ACS_ROUTE, echo);
    fastify.post('/api/v1/things', echo);
    await fastify.ready();
  });

  afterAll(async () => {
    await fastify.close();
  });

  const form = (bytes: number) => 'SAMLResponse=' + 'A'.repeat(bytes - 'SAMLResponse='.length);
  const post = (url: string, payload: string | Readable, headers: Record<string, string> = {}) =>
    fastify.inject({ method: 'POST', url, payload, headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers } });

  it('reads a form of up to the limit at the ACS', async () => {
    const res = await post('/saml/acs/acme', form(LIMIT));
    expect(res.json()).toEqual({ oversized: false, fields: { SAMLResponse: 'A'.repeat(LIMIT - 'SAMLResponse='.length) } });
  });

  it('marks a larger one oversized, from its Content-Length or, sent without, once past the limit while reading', async () => {
    expect((await post('/saml/acs/acme', form(LIMIT + 1))).json()).toEqual({ oversized: true });
    const chunked = Readable.from(Array.from({ length: 100 }, () => Buffer.from('A'.repeat(512))));
    expect((await post('/saml/acs/acme', chunked, { 'transfer-encoding': 'chunked' })).json()).toEqual({ oversized: true });
  });

  it('refuses a form anywhere else with 415, and a form that is not UTF-8 with 400', async () => {
    expect((await post('/api/v1/things', form(20))).statusCode).toBe(415);
    expect((await post('/saml/acs/acme', Buffer.from([0x53, 0x3d, 0xff]) as unknown as string)).statusCode).toBe(400);
  });
});
