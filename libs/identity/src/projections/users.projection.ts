import type { Projection, ProjectionContext } from '#warden/eventstore';
import { type RecordedEvent, recordedAs, SUBJECT_ERASURE_REQUESTED_EVENT, subjectErasureOf } from '#warden/kernel';
import { USER_EVENT_TYPES, type UserEvent } from '../domain/user.events.js';
import { CONSOLE_SESSIONS, type ConsoleSessionDoc, USERS, USERS_BY_EMAIL, type UserDoc, type UserEmailDoc } from './users.read-model.js';

export const USERS_PROJECTION = 'identity-users';

/**
 * Dashboard users by id (and organization), by email digest for sign-in, and open sessions by
 * token hash. Every event carries the values it sets (roles, state), so applying one again
 * writes the same documents.
 */
export const usersProjection: Projection = {
  name: USERS_PROJECTION,
  collections: [USERS, USERS_BY_EMAIL, CONSOLE_SESSIONS],
  eventTypes: [...USER_EVENT_TYPES, SUBJECT_ERASURE_REQUESTED_EVENT],
  indexes: [{ collection: USERS, fields: ['orgId'] }],
  async apply(recorded: RecordedEvent, ctx: ProjectionContext) {
    const erasure = recorded.type === SUBJECT_ERASURE_REQUESTED_EVENT ? subjectErasureOf(recorded) : undefined;
    if (erasure) {
      // A GDPR deletion of this account is under way: the plaintext copy of its email goes (a rebuild
      // after the key is forgotten reads it as null anyway).
      const userId = erasure.consoleUserId;
      const user = userId ? await ctx.get<UserDoc>(USERS, userId) : undefined;
      if (user) ctx.put(USERS, user.id, { ...user, email: null });
      return;
    }
    const event = recordedAs<UserEvent>(recorded, ...USER_EVENT_TYPES);
    if (!event) return;
    if (event.type === 'UserCreated') {
      const d = event.data;
      ctx.put(USERS, d.userId, {
        id: d.userId,
        orgId: d.orgId,
        email: d.email,
        emailDigest: d.emailDigest,
        roles: d.roles,
        state: d.state,
        hasPassword: d.passwordHash !== null,
        createdAt: recorded.metadata.occurredAt,
      } satisfies UserDoc);
      ctx.put(USERS_BY_EMAIL, d.emailDigest, { userId: d.userId, orgId: d.orgId } satisfies UserEmailDoc);
      return;
    }
    if (event.type === 'ConsoleSessionOpened') {
      const d = event.data;
      ctx.put(CONSOLE_SESSIONS, d.tokenHash, {
        sessionId: d.sessionId,
        userId: d.userId,
        orgId: recorded.metadata.orgId,
        expiresAt: d.expiresAt,
      } satisfies ConsoleSessionDoc);
      return;
    }
    if (event.type === 'ConsoleSessionClosed') {
      ctx.delete(CONSOLE_SESSIONS, event.data.tokenHash);
      return;
    }
    const user = await ctx.get<UserDoc>(USERS, event.data.userId);
    if (!user) return;
    switch (event.type) {
      case 'UserInvited':
      case 'UserPasswordRehashed':
        return;
      case 'UserInvitationAccepted':
      case 'UserPasswordSet':
        ctx.put(USERS, user.id, { ...user, hasPassword: true, state: user.state === 'invited' ? 'active' : user.state });
        return;
      case 'UserRolesChanged':
        ctx.put(USERS, user.id, { ...user, roles: event.data.roles });
        return;
      case 'UserDisabled':
        ctx.put(USERS, user.id, { ...user, state: 'disabled' });
        return;
      case 'UserEnabled':
        ctx.put(USERS, user.id, { ...user, state: event.data.state });
        return;
    }
  },
};
