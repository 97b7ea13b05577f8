// The HTTP entry, `#warden/platform/http`: the pieces that load Fastify, Swagger and
// class-validator. Server processes compose them; the CLI imports only the core entry (index.ts).
export { PlatformHttpModule } from './platform-http.module.js';
export { ErrorBodyDto, ErrorItemDto, errorBody } from './http/error-body.js';
export { createHttpApp, startDraining } from './http/http-app.js';
export { escapePointer } from './http/validation.js';
export { PublicBodyLimit } from './http/public-body-limit.js';
export { ApiErrors, ApiConsoleRoute, ApiCustomerRoute } from './openapi/api-errors.decorator.js';
export { SPEC_TRAILING_SLASH_OPERATIONS } from './openapi/spec-paths.js';
export { Idempotent } from './idempotency/idempotent.decorator.js';
export { IdempotencyInterceptor } from './idempotency/idempotency.interceptor.js';
export {
  AsReceived,
  ErrorTitle,
  IsBooleanValue,
  IsCustomerId,
  QueryInteger,
  IsJsonObject,
  IsNonEmptyArray,
  IsNonEmptyString,
  NestedDtoArray,
  WhenPresent,
} from './http/validation-rules.decorator.js';
