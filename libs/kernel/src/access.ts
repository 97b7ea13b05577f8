/**
 * Dashboard roles and what each may do: the table of interface spec 5.6, plus the permissions the
 * console needs. It is the one declaration of access in the code; console routes name a
 * permission (`@RequirePermissions`), never a role.
 */
export const ROLES = [
  'ADMIN',
  'RULES_MANAGER',
  'ANALYST',
  'MODERATOR_MANAGER',
  'MODERATOR',
  'CHILD_SAFETY_MODERATOR',
  'EXTERNAL_MODERATOR',
] as const;
export type Role = (typeof ROLES)[number];

/** The roles of people who work review queues (spec 5.6: "all moderator roles"). */
const MODERATOR_ROLES = ['ADMIN', 'MODERATOR_MANAGER', 'MODERATOR', 'CHILD_SAFETY_MODERATOR', 'EXTERNAL_MODERATOR'] as const;

export const ROLE_PERMISSIONS = {
  // Spec 5.6.
  MANAGE_ORG: ['ADMIN'],
  MUTATE_LIVE_RULES: ['ADMIN', 'RULES_MANAGER'],
  VIEW_MRT: MODERATOR_ROLES,
  EDIT_MRT_QUEUES: ['ADMIN', 'MODERATOR_MANAGER'],
  VIEW_CHILD_SAFETY_DATA: ['ADMIN', 'MODERATOR_MANAGER', 'CHILD_SAFETY_MODERATOR'],
  // What the console needs beyond the spec's table.
  /** Signed in with any role: one's own account, sign-out, second factor. */
  USE_CONSOLE: ROLES,
  /** Decide review jobs: every moderator role but EXTERNAL_MODERATOR, which only views (spec 5.6). */
  DECIDE_MRT: ['ADMIN', 'MODERATOR_MANAGER', 'MODERATOR', 'CHILD_SAFETY_MODERATOR'],
  /** Managers' view of review work: every job of a queue, releasing a moderator's lock, assigning a job. */
  MANAGE_MRT_JOBS: ['ADMIN', 'MODERATOR_MANAGER'],
  /** Create, rotate and revoke API keys. */
  MANAGE_API_KEYS: ['ADMIN'],
  /** Invite and disable dashboard users, change their roles. */
  MANAGE_USERS: ['ADMIN'],
  /** Read and change the organization's SSO settings. */
  MANAGE_SSO: ['ADMIN'],
  /** Read the audit trail and export the event history. */
  VIEW_AUDIT: ['ADMIN', 'ANALYST'],
  /** Read the organization's reports on how moderation goes (the appeals report: which rules are overturned). */
  VIEW_INSIGHTS: ['ADMIN', 'RULES_MANAGER', 'ANALYST'],
  /** See the organization's callback deliveries and send one again. */
  MANAGE_CALLBACKS: ['ADMIN'],
  /** The rules page: the rules with today's actions and their recent matches. */
  VIEW_RULES: ['ADMIN', 'RULES_MANAGER', 'ANALYST'],
} as const satisfies Record<string, readonly Role[]>;

export type Permission = keyof typeof ROLE_PERMISSIONS;
export const PERMISSIONS = Object.keys(ROLE_PERMISSIONS) as Permission[];

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

/** Everything the given roles allow, in the table's order. */
export function permissionsOf(roles: readonly Role[]): Permission[] {
  return PERMISSIONS.filter((permission) => (ROLE_PERMISSIONS[permission] as readonly Role[]).some((role) => roles.includes(role)));
}
