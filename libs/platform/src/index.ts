export * from './config/warden-config.js';
export * from './tokens.js';
export * from './auth/principal.js';
export { ApiKeyGuard } from './auth/api-key.guard.js';
export { ErrorBodyDto, ErrorItemDto, errorBody } from './http/error-body.js';
export { createHttpApp } from './http/http-app.js';
export { escapePointer } from './http/validation.js';
export { ApiErrors, ApiCustomerRoute } from './openapi/api-errors.decorator.js';
export { buildOpenApiDocument } from './openapi/openapi.js';
export { SPEC_TRAILING_SLASH_OPERATIONS } from './openapi/spec-paths.js';
export { Metrics } from './observability/metrics.js';
export { createRootLogger, PinoNestLogger } from './observability/logger.js';
export { READINESS_CHECKS, type ReadinessCheck } from './observability/readiness.js';
export { PlatformModule } from './platform.module.js';
export { Keyring, KEYRING, isSealedSecret, loadKeyring, type SealedSecret } from './secrets/keyring.js';
export { openUrl, sealUrl, type StoredUrl, withSealedUrl } from './secrets/sealed-url.js';
export {
  GuardedHttpClient,
  GUARDED_HTTP_CLIENT,
  OutboundError,
  type OutboundRequest,
  type OutboundResponse,
} from './outbound/guarded-http-client.js';
export {
  AsReceived,
  ErrorTitle,
  IsBooleanValue,
  IsCustomerId,
  IsIntegerInRange,
  IsJsonObject,
  IsNonEmptyArray,
  IsNonEmptyString,
  NestedDtoArray,
  WhenPresent,
} from './http/validation-rules.decorator.js';
export { Idempotent } from './idempotency/idempotent.decorator.js';
export { IdempotencyInterceptor } from './idempotency/idempotency.interceptor.js';
export {
  IDEMPOTENCY_STORE,
  type IdempotencyStore,
  type BeginOutcome,
  type BeginRequest,
  type IdempotencyKeyRef,
  type StoredResponse,
} from './idempotency/idempotency-store.port.js';
export { SqliteIdempotencyStore } from './idempotency/sqlite-idempotency-store.js';
export { MongoIdempotencyStore, IDEMPOTENCY_COLLECTION } from './idempotency/mongo-idempotency-store.js';
