import { DomainError, type ErrorDetail, invalidInput } from '#warden/kernel';
import { isRole, type Role, ROLES } from './access.js';
import { checkedEmail, normalizeEmail } from './user-email.js';

/** A user as a configuration file declares it: roles only, never a password. */
export interface DesiredUser {
  readonly email: string;
  readonly roles: readonly string[];
}

/** A user as it is now, of the organization or (`orgId`) of another one with the same address. */
export interface ExistingUser {
  readonly id: string;
  readonly orgId: string;
  readonly email: string | null;
  readonly roles: readonly Role[];
  readonly state: 'invited' | 'active' | 'disabled';
}

export interface UsersPlan {
  readonly create: ReadonlyArray<{ email: string; roles: Role[] }>;
  readonly updateRoles: ReadonlyArray<{ userId: string; email: string; roles: Role[] }>;
  readonly disable: ReadonlyArray<{ userId: string; email: string }>;
  /** Active or invited users the file does not name, kept because apply runs without prune. */
  readonly leftAlone: readonly string[];
  /** Users the file names that are disabled: apply changes roles only, it never enables anyone. */
  readonly stillDisabled: readonly string[];
}

const sameRoles = (a: readonly Role[], b: readonly Role[]) => a.length === b.length && a.every((r) => b.includes(r));

/**
 * What `apply` does to an organization's dashboard users: create the missing ones (invited, no
 * password), bring roles to the file's, and with `prune` disable the users the file does not
 * name. Every problem is found before anything is changed (pointers into the file's `users:`).
 * `erased`: the file's addresses (normalized) held by a console account whose email a GDPR
 * deletion erased: such an address cannot be claimed again (docs/gdpr.md, "What stays").
 */
export function planUsers(
  orgId: string,
  desired: readonly DesiredUser[],
  existing: readonly ExistingUser[],
  prune: boolean,
  erased: ReadonlySet<string> = new Set(),
): UsersPlan {
  const problems: ErrorDetail[] = [];
  // The organization's own user of an address first: it may be one invited while another
  // organization holds the address (userEmailDecider), and that user is the file's to manage.
  const ordered = [...existing.filter((u) => u.orgId !== orgId), ...existing.filter((u) => u.orgId === orgId)];
  const byEmail = new Map(ordered.filter((u) => u.email !== null).map((u) => [normalizeEmail(u.email!), u]));
  const named = new Set<string>();
  const create: Array<{ email: string; roles: Role[] }> = [];
  const updateRoles: Array<{ userId: string; email: string; roles: Role[] }> = [];
  const stillDisabled: string[] = [];

  desired.forEach((entry, index) => {
    // The checks creating the user makes (CreateUserHandler), made here, before anything is
    // written: the file's own schema is looser (no length, lower case without Unicode normalization),
    // and a refusal at creation would come after the catalog and the users before it were written.
    const email = emailOf(entry.email);
    if (typeof email !== 'string') {
      problems.push({ title: 'Invalid user', detail: email.problem, pointer: `/users/${index}/email` });
      return;
    }
    if (named.has(email)) {
      problems.push({
        title: 'Invalid user',
        detail: 'The file names this address twice (addresses are compared without regard to case or Unicode normalization)',
        pointer: `/users/${index}/email`,
      });
      return;
    }
    named.add(email);
    const unknown = entry.roles.find((r) => !isRole(r));
    if (unknown !== undefined) {
      problems.push({ title: 'Invalid user', detail: `Unknown role ${unknown}; roles are ${ROLES.join(', ')}`, pointer: `/users/${index}/roles` });
      return;
    }
    if (entry.roles.length === 0) {
      problems.push({ title: 'Invalid user', detail: 'A user needs at least one role', pointer: `/users/${index}/roles` });
      return;
    }
    const roles = ROLES.filter((r) => entry.roles.includes(r));
    const current = byEmail.get(email);
    if (current === undefined && erased.has(email)) {
      problems.push({
        title: 'Invalid user',
        detail: 'This address was erased with its console account by a GDPR deletion and cannot be claimed again: remove it from users:',
        pointer: `/users/${index}/email`,
      });
    } else if (current === undefined) create.push({ email, roles });
    else if (current.orgId !== orgId) {
      problems.push({ title: 'Invalid user', detail: 'This address belongs to a user of another organization', pointer: `/users/${index}/email` });
    } else {
      if (current.state === 'disabled') stillDisabled.push(email);
      if (!sameRoles(current.roles, roles)) updateRoles.push({ userId: current.id, email, roles });
    }
  });
  if (problems.length > 0) throw invalidInput(...problems);

  const unnamed = existing.filter((u) => u.orgId === orgId && u.state !== 'disabled' && u.email !== null && !named.has(normalizeEmail(u.email)));
  return {
    create,
    updateRoles,
    disable: prune ? unnamed.map((u) => ({ userId: u.id, email: u.email! })) : [],
    leftAlone: prune ? [] : unnamed.map((u) => u.email!),
    stillDisabled,
  };
}

/** The address as a user is created with, or why it cannot be one. */
function emailOf(raw: string): string | { problem: string } {
  try {
    return checkedEmail(raw);
  } catch (error) {
    if (error instanceof DomainError) return { problem: error.details[0]?.detail ?? error.message };
    throw error;
  }
}
