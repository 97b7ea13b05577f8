// The HTTP entry, `#warden/callbacks/http`: routes and request/response DTOs (Swagger, class-validator).
// Server processes compose it; the CLI loads only the core entry (index.ts).
export { CallbacksHttpModule } from './callbacks-http.module.js';
// The outbound bodies, as OpenAPI callbacks of the customer operations that lead to them.
export { ActionCallbackBodyDto, ApiActionCallback, ApiAppealDecisionCallback, AppealDecisionCallbackBodyDto } from './delivery/callback-bodies.dto.js';
