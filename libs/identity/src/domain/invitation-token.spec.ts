import { describe, expect, it } from 'vitest';
import { hashInvitationToken, invitationLink, invitationTarget, newInvitationToken } from './invitation-token.js';

describe('invitation tokens', () => {
  it('name the user they open, carry 256 random bits, and are recorded only as a digest', () => {
    const token = newInvitationToken('acme', 'usr_Q2x1c3Rlcj');
    expect(token).toMatch(/^acme\.usr_Q2x1c3Rlcj\.[\w-]{43}$/);
    expect(invitationTarget(token)).toEqual({ orgId: 'acme', userId: 'usr_Q2x1c3Rlcj' });
    expect(newInvitationToken('acme', 'usr_Q2x1c3Rlcj')).not.toBe(token);
    expect(hashInvitationToken(token)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashInvitationToken(token)).not.toContain(token.split('.')[2]);
  });

  it('refuse values that are not tokens', () => {
    for (const value of ['', 'acme', 'acme.usr_x', 'acme..secret', 'a.b.c.d', 'acme.usr x.secret', 'acme/x.usr.secret']) {
      expect(invitationTarget(value), value).toBeNull();
    }
  });

  it('travel in the fragment of the console link, which browsers never send to a server', () => {
    expect(invitationLink('https://warden.example/', 'acme.u.s')).toBe('https://warden.example/console/invite#acme.u.s');
    expect(invitationLink('http://localhost:3000', 'acme.u.s')).toBe('http://localhost:3000/console/invite#acme.u.s');
  });
});
