import type { DomainEvent } from '#warden/kernel';

export type OrganizationCreated = DomainEvent<'OrganizationCreated', { orgId: string; name: string }>;
export type OrganizationRenamed = DomainEvent<'OrganizationRenamed', { orgId: string; name: string }>;

export type ApiKeyCreated = DomainEvent<
  'ApiKeyCreated',
  {
    keyId: string;
    orgId: string;
    name: string | null;
    team: string | null;
    /** SHA-256 of the key; the key itself is never stored. */
    hash: string;
    /** The first characters of the key, so people can tell their keys apart. */
    prefix: string;
    rotatedFrom: string | null;
  }
>;

export type ApiKeyRotated = DomainEvent<'ApiKeyRotated', { keyId: string; replacedBy: string }>;
export type ApiKeyRevoked = DomainEvent<'ApiKeyRevoked', { keyId: string }>;

export type OrganizationEvent = OrganizationCreated | OrganizationRenamed;
export type ApiKeyEvent = ApiKeyCreated | ApiKeyRotated | ApiKeyRevoked;

export const IDENTITY_EVENT_TYPES = ['OrganizationCreated', 'OrganizationRenamed', 'ApiKeyCreated', 'ApiKeyRotated', 'ApiKeyRevoked'] as const;
