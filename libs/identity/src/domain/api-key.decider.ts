import { conflict, type Decider, invalidField, type Json, notFound } from '#warden/kernel';
import type { ApiKeyEvent } from './identity.events.js';

export type ApiKeyCommand =
  | {
      type: 'CreateApiKey';
      keyId: string;
      orgId: string;
      name: string | null;
      team: string | null;
      hash: string;
      prefix: string;
      rotatedFrom: string | null;
    }
  | { type: 'RotateApiKey'; keyId: string; orgId: string; replacedBy: string }
  | { type: 'RevokeApiKey'; keyId: string; orgId: string };

export type ApiKeyStatus = 'none' | 'active' | 'rotated' | 'revoked';
export type ApiKeyState = { status: ApiKeyStatus; orgId: string | null };

export const apiKeyDecider: Decider<ApiKeyCommand, ApiKeyState, ApiKeyEvent> = {
  eventTypes: { ApiKeyCreated: true, ApiKeyRotated: true, ApiKeyRevoked: true },
  initialState: { status: 'none', orgId: null },
  decide(command, state) {
    switch (command.type) {
      case 'CreateApiKey': {
        if (state.status !== 'none') throw conflict(`API key ${command.keyId} already exists`);
        if (command.name !== null && command.name.length > 100) throw invalidField('/name', 'A key name is at most 100 characters');
        if (command.team !== null && command.team.length > 100) throw invalidField('/team', 'A team is at most 100 characters');
        const { type: _type, ...data } = command;
        return [{ type: 'ApiKeyCreated', data }];
      }
      case 'RotateApiKey':
        if (state.status === 'none' || state.orgId !== command.orgId) throw notFound(`No API key ${command.keyId}`);
        if (state.status !== 'active') throw conflict(`API key ${command.keyId} is already ${state.status}`);
        return [{ type: 'ApiKeyRotated', data: { keyId: command.keyId, replacedBy: command.replacedBy } }];
      case 'RevokeApiKey':
        if (state.status === 'none' || state.orgId !== command.orgId) throw notFound(`No API key ${command.keyId}`);
        if (state.status === 'revoked') return [];
        return [{ type: 'ApiKeyRevoked', data: { keyId: command.keyId } }];
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'ApiKeyCreated':
        return { status: 'active', orgId: event.data.orgId };
      case 'ApiKeyRotated':
        return { ...state, status: 'rotated' };
      case 'ApiKeyRevoked':
        return { ...state, status: 'revoked' };
    }
  },
  // A key's state is its status and organization: nothing personal, a snapshot as small as it gets.
  snapshot: { name: 'api_key', version: 1, encode: (state) => ({ ...state }), decode: (json: Json) => json as unknown as ApiKeyState },
};
