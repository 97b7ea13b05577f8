import { FASTIFY_ROUTE_CONFIG_METADATA } from '@nestjs/platform-fastify/constants.js';
import { describe, expect, it } from 'vitest';
import { applyPublicBodyLimit, FASTIFY_ROUTE_CONFIG_KEY } from './public-body-limit.js';

describe('the public body limit', () => {
  it("marks routes under @nestjs/platform-fastify's own route config key", () => {
    expect(FASTIFY_ROUTE_CONFIG_KEY).toBe(FASTIFY_ROUTE_CONFIG_METADATA);
  });

  it('gives marked routes the public limit, never a larger one than they had, and leaves the others alone', () => {
    const marked = { config: { wardenPublicBody: true }, bodyLimit: undefined as number | undefined };
    applyPublicBodyLimit(marked, 65_536);
    expect(marked.bodyLimit).toBe(65_536);
    const smaller = { config: { wardenPublicBody: true }, bodyLimit: 1_024 };
    applyPublicBodyLimit(smaller, 65_536);
    expect(smaller.bodyLimit).toBe(1_024);
    const other = { config: {}, bodyLimit: undefined as number | undefined };
    applyPublicBodyLimit(other, 65_536);
    expect(other.bodyLimit).toBeUndefined();
  });
});
