export const ORGANIZATIONS = 'identity_organizations';
export const API_KEYS = 'identity_api_keys';
export const API_KEYS_BY_HASH = 'identity_api_key_hashes';
/** Operational data written by the authenticator, not by the projection: a rebuild keeps it. */
export const API_KEY_USAGE = 'identity_api_key_usage';

export type OrganizationDoc = { id: string; name: string; createdAt: string };

export type ApiKeyDoc = {
  id: string;
  orgId: string;
  name: string | null;
  team: string | null;
  prefix: string;
  /** Needed to update the hash index when the key is deactivated; never returned. */
  hash: string;
  status: 'active' | 'rotated' | 'revoked';
  createdAt: string;
  deactivatedAt: string | null;
  rotatedFrom: string | null;
  replacedBy: string | null;
};

export type ApiKeyHashDoc = { keyId: string; orgId: string; team: string | null; status: ApiKeyDoc['status'] };
