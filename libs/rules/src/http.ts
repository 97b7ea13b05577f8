// The HTTP entry, `#warden/rules/http`: routes and request/response DTOs (Swagger, class-validator).
// Server processes compose it; the CLI loads only the core entry (index.ts).
export { RulesHttpModule } from './rules-http.module.js';
