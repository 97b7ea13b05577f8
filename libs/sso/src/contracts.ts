/**
 * The SSO module's framework-free contracts: the events it owns, declared once
 * (docs/architecture.md, "Events"); the module's index re-exports them. They carry no personal
 * fields (an assertion's digest, an attempt's reason), so it declares no personal-data rules.
 */
export type { SamlAssertionAccepted, SsoLoginFailed, SsoRefusalReason, SamlAssertionEvent, SsoLoginEvent } from './domain/sso.events.js';
export { SSO_REFUSAL_REASONS } from './domain/sso.events.js';
