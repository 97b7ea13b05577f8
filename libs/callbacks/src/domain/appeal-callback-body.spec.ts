import { describe, expect, it } from 'vitest';
import { buildAppealCallbackBody } from './appeal-callback-body.js';

describe('appeal decision callback body (interface-spec 6.3)', () => {
  it('has appealId, item, appealedBy, appealDecision and the configured custom body, in that order', () => {
    const body = buildAppealCallbackBody({
      appealId: 'appeal-9',
      item: { id: 'post-1', typeId: 'post', typeName: 'Post' },
      appealedBy: { id: 'u1', typeId: 'user' },
      decision: 'ACCEPT',
      appealBody: { source: 'warden' },
    });
    expect(JSON.stringify(body)).toBe(
      JSON.stringify({
        appealId: 'appeal-9',
        item: { id: 'post-1', typeId: 'post', typeName: 'Post' },
        appealedBy: { id: 'u1', typeId: 'user' },
        appealDecision: 'ACCEPT',
        custom: { source: 'warden' },
      }),
    );
  });

  it('carries REJECT as is and an empty custom body when none is configured', () => {
    const body = buildAppealCallbackBody({
      appealId: 'a',
      item: { id: 'u2', typeId: 'user', typeName: 'User' },
      appealedBy: { id: 'u2', typeId: 'user' },
      decision: 'REJECT',
      appealBody: {},
    });
    expect(body.appealDecision).toBe('REJECT');
    expect(body.custom).toEqual({});
  });
});
