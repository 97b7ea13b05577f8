import type { Schemas } from '../api/client';

export type Role = Schemas['UserDto']['roles'][number];

/** Every role with what it is for; a Record, so a role added to the API fails the build until described. */
const ROLE_LABELS: Record<Role, string> = {
  ADMIN: 'Administrator',
  RULES_MANAGER: 'Rules manager',
  ANALYST: 'Analyst',
  MODERATOR_MANAGER: 'Moderator manager',
  MODERATOR: 'Moderator',
  CHILD_SAFETY_MODERATOR: 'Child-safety moderator',
  EXTERNAL_MODERATOR: 'External moderator (view only)',
  AUDITOR: 'Auditor (audit trail, read only)',
};

export const ROLES = Object.keys(ROLE_LABELS) as Role[];
export const roleLabel = (role: Role): string => ROLE_LABELS[role];
