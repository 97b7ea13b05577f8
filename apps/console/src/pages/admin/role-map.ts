import { type Role, ROLES } from '../../app/roles';

/** `group = ROLE, ROLE` per line; split at the last `=`, since a group (an LDAP DN: `CN=Mods,OU=G`) may hold some. */
export function parseRoleMap(text: string): Record<string, Role[]> | string {
  // Entries, then an object: a group named `__proto__` is a key like any other (an assignment would set the prototype).
  const entries: Array<[string, Role[]]> = [];
  const lines = text.split('\n').map((l) => l.trim());
  for (const [index, line] of lines.entries()) {
    if (line === '') continue;
    const at = line.lastIndexOf('=');
    const [group, roles] = at < 0 ? [line, undefined] : [line.slice(0, at).trim(), line.slice(at + 1).trim()];
    if (!group || roles === undefined) return `Group roles, line ${index + 1}: write "group = ROLE, ROLE".`;
    const listed = roles
      .split(',')
      .map((r) => r.trim())
      .filter((r) => r !== '');
    const unknown = listed.find((r) => !(ROLES as string[]).includes(r));
    if (unknown) return `Group roles, line ${index + 1}: ${unknown} is not a role (${ROLES.join(', ')}).`;
    entries.push([group, listed as Role[]]);
  }
  return Object.fromEntries(entries);
}

/** The values an IdP administrator enters for this organization, each ready to copy. */
