import { describe, expect, it } from 'vitest';
import { parseRoleMap } from './role-map';

describe("the SSO page's group roles", () => {
  it('maps a group whose name holds "=" (an LDAP DN), splitting each line at its last "="', () => {
    expect(parseRoleMap('CN=Mods,OU=G,DC=corp = MODERATOR\nadmins = ADMIN, ANALYST')).toEqual({
      'CN=Mods,OU=G,DC=corp': ['MODERATOR'],
      admins: ['ADMIN', 'ANALYST'],
    });
  });

  it('keeps a group named __proto__ as a group, and says which line is wrong', () => {
    const map = parseRoleMap('__proto__ = ADMIN');
    expect(Object.keys(map)).toEqual(['__proto__']);
    expect(parseRoleMap('mods\nadmins = ADMIN')).toBe('Group roles, line 1: write "group = ROLE, ROLE".');
    expect(parseRoleMap('mods = CHIEF')).toMatch(/^Group roles, line 1: CHIEF is not a role/);
  });
});
