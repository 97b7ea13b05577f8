// The HTTP entry, `#warden/identity/http`: routes and request/response DTOs (Swagger, class-validator).
// Server processes compose it; the CLI loads only the core entry (index.ts).
export { IdentityHttpModule } from './identity-http.module.js';
export { setSessionCookie, clearSessionCookie } from './commands/password-login/console-session.http.controller.js';
