import { createHash, randomBytes } from 'node:crypto';

/** Invitations last 72 hours (docs/console-access.md, "Users (permission `MANAGE_USERS`: ADMIN)"). */
export const INVITATION_TTL_MS = 72 * 60 * 60 * 1000;

/**
 * `<orgId>.<userId>.<secret>`: the token names the user it opens, so accepting it loads that
 * user's stream and the decider compares hashes on the write side; no read model is consulted.
 * Neither an organization id nor a user id contains a dot.
 */
export function newInvitationToken(orgId: string, userId: string): string {
  return `${orgId}.${userId}.${randomBytes(32).toString('base64url')}`;
}

/** 256 random bits need no slow hash; only this digest is recorded. */
export function hashInvitationToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** The user a token names, or null for a value that is not an invitation token at all. */
export function invitationTarget(token: string): { orgId: string; userId: string } | null {
  const parts = token.split('.');
  if (parts.length !== 3 || parts.some((p) => p === '' || !/^[A-Za-z0-9_-]+$/.test(p))) return null;
  return { orgId: parts[0]!, userId: parts[1]! };
}

/** The console page that accepts an invitation; the token is in the fragment, which browsers never send to a server. */
export function invitationLink(publicUrl: string, token: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/console/invite#${token}`;
}
