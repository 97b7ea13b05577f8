// The HTTP entry, `#warden/callbacks/http`: routes and request/response DTOs (Swagger, class-validator).
// Server processes compose it; the CLI loads only the core entry (index.ts).
export { CallbacksHttpModule } from './callbacks-http.module.js';
