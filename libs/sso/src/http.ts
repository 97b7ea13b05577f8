// The HTTP entry, `#warden/sso/http`: the SAML routes. Server processes compose it; the CLI loads
// only the core entry (index.ts).
export { SsoHttpModule } from './http/sso-http.module.js';
