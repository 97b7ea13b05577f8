import { conflict, type Decider, invalidField, ORG_ID } from '#warden/kernel';
import type { OrganizationEvent } from './identity.events.js';

export type OrganizationCommand =
  | { type: 'CreateOrganization'; orgId: string; name: string }
  /** Configuration as code: create when missing, rename when the name differs, else nothing. */
  | { type: 'ConfigureOrganization'; orgId: string; name: string };
export type OrganizationState = { exists: boolean; name: string | null };

export const organizationDecider: Decider<OrganizationCommand, OrganizationState, OrganizationEvent> = {
  eventTypes: { OrganizationCreated: true, OrganizationRenamed: true },
  initialState: { exists: false, name: null },
  decide(command, state) {
    if (!ORG_ID.test(command.orgId)) {
      throw invalidField('/id', 'An organization id is 1-63 lower-case letters, digits, "-" or "_"');
    }
    const name = command.name.trim();
    if (name === '' || name.length > 200) throw invalidField('/name', 'A name is 1-200 characters');
    if (!state.exists) return [{ type: 'OrganizationCreated', data: { orgId: command.orgId, name } }];
    if (command.type === 'CreateOrganization') throw conflict(`Organization ${command.orgId} already exists`);
    return state.name === name ? [] : [{ type: 'OrganizationRenamed', data: { orgId: command.orgId, name } }];
  },
  evolve(state, event) {
    switch (event.type) {
      case 'OrganizationCreated':
      case 'OrganizationRenamed':
        return { exists: true, name: event.data.name };
    }
  },
};
