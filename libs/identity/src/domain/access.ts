/**
 * Dashboard roles and what each may do: the table of docs/console-access.md, "Roles and what they may do", plus the permissions the
 * console needs, plus AUDITOR (read-only access to the audit trail; docs/console-access.md,
 * "Roles"). It is the one declaration of access in the code; console routes name a permission
 * (`@RequirePermissions`), never a role.
 */
export const ROLES = [
  'ADMIN',
  'RULES_MANAGER',
  'ANALYST',
  'MODERATOR_MANAGER',
  'MODERATOR',
  'CHILD_SAFETY_MODERATOR',
  'EXTERNAL_MODERATOR',
  /** Beyond the spec: reads the audit trail (exports, histories, reports, a replayed server), changes nothing. */
  'AUDITOR',
] as const;
export type Role = (typeof ROLES)[number];

/** The roles of people who work review queues (docs/console-access.md, "Roles and what they may do": "all moderator roles"). */
const MODERATOR_ROLES = ['ADMIN', 'MODERATOR_MANAGER', 'MODERATOR', 'CHILD_SAFETY_MODERATOR', 'EXTERNAL_MODERATOR'] as const;

export const ROLE_PERMISSIONS = {
  // The interface's table (docs/console-access.md, "Roles and what they may do").
  MANAGE_ORG: ['ADMIN'],
  MUTATE_LIVE_RULES: ['ADMIN', 'RULES_MANAGER'],
  VIEW_MRT: MODERATOR_ROLES,
  EDIT_MRT_QUEUES: ['ADMIN', 'MODERATOR_MANAGER'],
  VIEW_CHILD_SAFETY_DATA: ['ADMIN', 'MODERATOR_MANAGER', 'CHILD_SAFETY_MODERATOR'],
  // What the console needs beyond the spec's table.
  /** Signed in with any role: one's own account, sign-out, second factor. */
  USE_CONSOLE: ROLES,
  /** Decide review jobs: every moderator role but EXTERNAL_MODERATOR, which only views (docs/console-access.md, "Roles and what they may do"). */
  DECIDE_MRT: ['ADMIN', 'MODERATOR_MANAGER', 'MODERATOR', 'CHILD_SAFETY_MODERATOR'],
  /** Managers' view of review work: every job of a queue, releasing a moderator's lock, assigning a job. */
  MANAGE_MRT_JOBS: ['ADMIN', 'MODERATOR_MANAGER'],
  /** Create, rotate and revoke API keys. */
  MANAGE_API_KEYS: ['ADMIN'],
  /** Invite and disable dashboard users, change their roles. */
  MANAGE_USERS: ['ADMIN'],
  /** Read and change the organization's SSO settings. */
  MANAGE_SSO: ['ADMIN'],
  /** Read item and user histories and export the event history, personal fields null and no secret in it. */
  VIEW_AUDIT: ['ADMIN', 'ANALYST', 'AUDITOR'],
  /** Item and user histories with their personal fields opened (the people's texts, as the job view shows them). */
  VIEW_AUDIT_PERSONAL_DATA: ['ADMIN', 'ANALYST'],
  /** Exports with personal fields in plaintext: a copy of people's data that leaves Warden. */
  EXPORT_AUDIT_PERSONAL_DATA: ['ADMIN'],
  /**
   * Both of the above, only while the organization grants them to auditors
   * (`org.settings.auditorPersonalData`, default off): see auditPersonalDataAccess.
   */
  AUDIT_PERSONAL_DATA_IF_GRANTED: ['AUDITOR'],
  /**
   * Read the organization's reports on how moderation goes (the appeals report: which rules are
   * overturned; the Insights charts, whose queue charts are a moderator manager's daily tool).
   */
  VIEW_INSIGHTS: ['ADMIN', 'RULES_MANAGER', 'ANALYST', 'MODERATOR_MANAGER', 'AUDITOR'],
  /** See the organization's callback deliveries and send one again. */
  MANAGE_CALLBACKS: ['ADMIN'],
  /** The rules page: the rules with today's actions and their recent matches. */
  VIEW_RULES: ['ADMIN', 'RULES_MANAGER', 'ANALYST'],
  /** Act on many items at once (docs/bulk-actions.md): one action, its policies and a reason over up to 10,000 ids. */
  BULK_ACTIONS: ['ADMIN', 'MODERATOR_MANAGER'],
  /** Investigate: look an item or a user up by id and see all Warden knows of it (docs/console.md, "Investigate"). */
  INVESTIGATE: ['ADMIN', 'MODERATOR_MANAGER', 'ANALYST', 'AUDITOR'],
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

/** What personal data the audit routes show a viewer: in histories (`read`), in exports (`export`). */
export interface AuditPersonalDataAccess {
  readonly read: boolean;
  readonly export: boolean;
}

/**
 * Personal data in the audit trail for a viewer with these permissions, in an organization that
 * does or does not grant it to auditors (`org.settings.auditorPersonalData`). The grant is the
 * organization's, recorded with its configuration, so it is read per request, not fixed in the table.
 */
export function auditPersonalDataAccess(permissions: readonly Permission[], grantedToAuditors: boolean): AuditPersonalDataAccess {
  const granted = grantedToAuditors && permissions.includes('AUDIT_PERSONAL_DATA_IF_GRANTED');
  return {
    read: granted || permissions.includes('VIEW_AUDIT_PERSONAL_DATA'),
    export: granted || permissions.includes('EXPORT_AUDIT_PERSONAL_DATA'),
  };
}
