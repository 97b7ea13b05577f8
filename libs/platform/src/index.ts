export * from './config/warden-config.js';
export * from './tokens.js';
export * from './auth/principal.js';
export { ApiKeyGuard } from './auth/api-key.guard.js';
export { ErrorBodyDto, ErrorItemDto, errorBody } from './http/error-body.js';
export { createHttpApp } from './http/http-app.js';
export { escapePointer } from './http/validation.js';
export { ApiErrors, ApiCustomerRoute } from './openapi/api-errors.decorator.js';
export { buildOpenApiDocument } from './openapi/openapi.js';
export { Metrics } from './observability/metrics.js';
export { createRootLogger, PinoNestLogger } from './observability/logger.js';
export { openStorage, type Storage } from './storage/storage.js';
export { ProjectionHost } from './storage/projection-host.js';
export { AggregateStore } from './storage/aggregate-store.js';
export { STORAGE, EVENT_STORE, READ_STORE, SUBJECT_KEY_STORE } from './storage/storage.tokens.js';
export { PlatformModule, type PlatformOptions } from './platform.module.js';
export { Keyring, KEYRING, isSealedSecret, type SealedSecret } from './secrets/keyring.js';
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
  IsIntegerInRange,
  IsJsonObject,
  IsNonEmptyArray,
  IsNonEmptyString,
  IsOneOf,
  IsStringValue,
  NestedDtoArray,
  WhenPresent,
} from './http/validation-rules.decorator.js';
