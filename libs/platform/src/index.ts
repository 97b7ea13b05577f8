// The core entry: what every process needs (the CLI included). The HTTP surface (Fastify, Swagger,
// request validation) is in http.ts, `#warden/platform/http`, which only server processes load.
export * from './config/warden-config.js';
export * from './tokens.js';
export * from './auth/principal.js';
export { ApiKeyGuard } from './auth/api-key.guard.js';
export * from './auth/console-access.js';
export { clientNetwork } from './auth/client-network.js';
export { ConsoleGuard, isOwnOrigin } from './auth/console.guard.js';
export { consoleActor, consoleCommandContext } from './auth/console-context.js';
export { Metrics, type ThreadMetricValues } from './observability/metrics.js';
export { findJsonBodyProblem, jsonBodyLimitsOf, type JsonBodyLimits, type JsonBodyProblem } from './http/json-body-limits.js';
// What storage's shared rate-limit store implements; the limiter itself is HTTP (http.ts).
export { checkedKey, checkedTokens, type RateLimit, type RateLimitStore, secondsUntilToken } from './http/rate-limit-store.port.js';
export { MemoryRateLimitStore } from './http/token-bucket.js';
export { createRootLogger, PinoNestLogger } from './observability/logger.js';
export { READINESS_CHECKS, type ReadinessCheck } from './observability/readiness.js';
export { PlatformModule } from './platform.module.js';
export { GuardedHttpClient, GUARDED_HTTP_CLIENT, OutboundError, type OutboundRequest, type OutboundResponse } from './outbound/guarded-http-client.js';
export {
  IDEMPOTENCY_STORE,
  type IdempotencyStore,
  type BeginOutcome,
  type BeginRequest,
  type IdempotencyKeyRef,
  type StoredResponse,
  checkedBegin,
  checkedRef,
} from './idempotency/idempotency-store.port.js';
