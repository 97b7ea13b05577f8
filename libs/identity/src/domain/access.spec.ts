import { describe, expect, it } from 'vitest';
import { auditPersonalDataAccess, isRole, type Permission, PERMISSIONS, permissionsOf, type Role, ROLE_PERMISSIONS, ROLES } from './access.js';

/**
 * What each role may do, written out again rather than derived: a permission granted to one role
 * too many or too few (a line of the table edited by mistake) fails here, not only in the slow
 * end-to-end suites that sign in as each role.
 */
const EXPECTED: Record<Role, readonly Permission[]> = {
  ADMIN: [
    'MANAGE_ORG',
    'MUTATE_LIVE_RULES',
    'VIEW_MRT',
    'EDIT_MRT_QUEUES',
    'VIEW_CHILD_SAFETY_DATA',
    'USE_CONSOLE',
    'DECIDE_MRT',
    'MANAGE_MRT_JOBS',
    'MANAGE_API_KEYS',
    'MANAGE_USERS',
    'MANAGE_SSO',
    'VIEW_AUDIT',
    'VIEW_AUDIT_PERSONAL_DATA',
    'EXPORT_AUDIT_PERSONAL_DATA',
    'VIEW_INSIGHTS',
    'MANAGE_CALLBACKS',
    'VIEW_RULES',
    'BULK_ACTIONS',
    'INVESTIGATE',
  ],
  RULES_MANAGER: ['MUTATE_LIVE_RULES', 'USE_CONSOLE', 'VIEW_INSIGHTS', 'VIEW_RULES'],
  // Histories with personal fields, as before AUDITOR; never an export with them (issue 31).
  ANALYST: ['USE_CONSOLE', 'VIEW_AUDIT', 'VIEW_AUDIT_PERSONAL_DATA', 'VIEW_INSIGHTS', 'VIEW_RULES', 'INVESTIGATE'],
  // Insights' queue charts are a moderator manager's daily tool (issue 34).
  MODERATOR_MANAGER: [
    'VIEW_MRT',
    'EDIT_MRT_QUEUES',
    'VIEW_CHILD_SAFETY_DATA',
    'USE_CONSOLE',
    'DECIDE_MRT',
    'MANAGE_MRT_JOBS',
    'VIEW_INSIGHTS',
    'BULK_ACTIONS',
    'INVESTIGATE',
  ],
  MODERATOR: ['VIEW_MRT', 'USE_CONSOLE', 'DECIDE_MRT'],
  CHILD_SAFETY_MODERATOR: ['VIEW_MRT', 'VIEW_CHILD_SAFETY_DATA', 'USE_CONSOLE', 'DECIDE_MRT'],
  // View-only review access (docs/console-access.md, "Roles and what they may do").
  EXTERNAL_MODERATOR: ['VIEW_MRT', 'USE_CONSOLE'],
  // Issue 31: reads the audit trail and the reports, changes nothing; personal data only by the organization's grant.
  AUDITOR: ['USE_CONSOLE', 'VIEW_AUDIT', 'AUDIT_PERSONAL_DATA_IF_GRANTED', 'VIEW_INSIGHTS', 'INVESTIGATE'],
};

const sorted = (values: readonly string[]) => [...values].sort();

describe('the roles table', () => {
  it('knows exactly the roles of spec 5.6 and the permissions listed here', () => {
    expect(sorted(ROLES)).toEqual(sorted(Object.keys(EXPECTED)));
    expect(sorted(PERMISSIONS)).toEqual(sorted([...new Set(Object.values(EXPECTED).flat())]));
  });

  it.each(ROLES)('gives %s exactly its permissions', (role) => {
    expect(sorted(permissionsOf([role]))).toEqual(sorted(EXPECTED[role]));
  });

  it.each([
    ['MANAGE_ORG', ['ADMIN']],
    ['MUTATE_LIVE_RULES', ['ADMIN', 'RULES_MANAGER']],
    ['VIEW_MRT', ['ADMIN', 'MODERATOR_MANAGER', 'MODERATOR', 'CHILD_SAFETY_MODERATOR', 'EXTERNAL_MODERATOR']],
    ['EDIT_MRT_QUEUES', ['ADMIN', 'MODERATOR_MANAGER']],
    ['VIEW_CHILD_SAFETY_DATA', ['ADMIN', 'MODERATOR_MANAGER', 'CHILD_SAFETY_MODERATOR']],
  ] as const)('grants %s to the roles of the spec 5.6 table', (permission, roles) => {
    expect(sorted(ROLE_PERMISSIONS[permission])).toEqual(sorted(roles));
  });

  it('gives several roles the union of their permissions, in the table order, and no roles nothing', () => {
    expect(permissionsOf(['EXTERNAL_MODERATOR', 'ANALYST'])).toEqual([
      'VIEW_MRT',
      'USE_CONSOLE',
      'VIEW_AUDIT',
      'VIEW_AUDIT_PERSONAL_DATA',
      'VIEW_INSIGHTS',
      'VIEW_RULES',
      'INVESTIGATE',
    ]);
    expect(permissionsOf([])).toEqual([]);
  });

  it('shows auditors personal data only while their organization grants it; ANALYST never exports it', () => {
    const access = (role: Role, granted: boolean) => auditPersonalDataAccess(permissionsOf([role]), granted);
    expect(access('AUDITOR', false)).toEqual({ read: false, export: false });
    expect(access('AUDITOR', true)).toEqual({ read: true, export: true });
    for (const granted of [false, true]) {
      expect(access('ANALYST', granted)).toEqual({ read: true, export: false });
      expect(access('ADMIN', granted)).toEqual({ read: true, export: true });
      expect(access('MODERATOR', granted)).toEqual({ read: false, export: false });
    }
  });

  it('gives AUDITOR nothing that changes anything, and no credentials', () => {
    const changing: Permission[] = [
      'MANAGE_ORG',
      'MUTATE_LIVE_RULES',
      'EDIT_MRT_QUEUES',
      'DECIDE_MRT',
      'MANAGE_MRT_JOBS',
      'MANAGE_API_KEYS',
      'MANAGE_USERS',
      'MANAGE_SSO',
      'MANAGE_CALLBACKS',
    ];
    expect(permissionsOf(['AUDITOR']).filter((p) => changing.includes(p))).toEqual([]);
  });

  it('recognises the role names and nothing else', () => {
    for (const role of ROLES) expect(isRole(role)).toBe(true);
    for (const other of ['admin', 'ADMIN ', 'OWNER', '', undefined, null, 1, ['ADMIN']]) expect(isRole(other)).toBe(false);
  });
});
