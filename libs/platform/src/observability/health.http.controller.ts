import { createHash, timingSafeEqual } from 'node:crypto';
import { Controller, Get, Header, Inject, Req } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { unauthorized, unavailable } from '#warden/kernel';
import { authFailureLimitOf } from '../auth/auth-failure-limit.js';
import { Public } from '../auth/principal.js';
import { WARDEN_CONFIG, type WardenConfig } from '../config/warden-config.js';
import { ApiErrors } from '../openapi/api-errors.decorator.js';
import { METRICS_TOKEN_SCHEME } from '../openapi/openapi.js';
import { Metrics } from './metrics.js';
import { READINESS_CHECKS, type ReadinessCheck } from './readiness.js';

class HealthResponseDto {
  @ApiProperty({ example: 'ok', enum: ['ok'] })
  status!: 'ok';
}

@ApiTags('operations')
@Controller()
@Public()
export class HealthHttpController {
  constructor(
    @Inject(READINESS_CHECKS) private readonly checks: readonly ReadinessCheck[],
    private readonly metrics: Metrics,
    @Inject(WARDEN_CONFIG) private readonly config: WardenConfig,
  ) {}

  @Get('health/live')
  @ApiOperation({ operationId: 'getLiveness', summary: 'Liveness: the process answers' })
  @ApiOkResponse({ type: HealthResponseDto, description: 'The process answers', example: { status: 'ok' } })
  @ApiErrors(500, 503)
  live(): HealthResponseDto {
    return { status: 'ok' };
  }

  @Get('health/ready')
  @ApiOperation({ operationId: 'getReadiness', summary: 'Readiness: the event store and the read-model store answer' })
  @ApiOkResponse({ type: HealthResponseDto, description: 'Every store answers: the server can take requests', example: { status: 'ok' } })
  @ApiErrors(500, 503)
  async ready(): Promise<HealthResponseDto> {
    const answers = await Promise.allSettled(this.checks.map((c) => c.ping()));
    const failed = this.checks.filter((_, i) => answers[i]!.status === 'rejected').map((c) => c.name);
    if (failed.length > 0) throw unavailable(`Not reachable: ${failed.join(', ')}`);
    return { status: 'ok' };
  }

  @Get('metrics')
  @Header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8')
  @ApiOperation({
    operationId: 'getMetrics',
    summary: 'Prometheus metrics: request rates and latencies, event-store appends, projection lag',
    description:
      'Open unless the server sets WARDEN_METRICS_TOKEN; then it asks for `Authorization: Bearer <token>` ' +
      '(docs/operations.md, "Health, metrics, logs"), and a missing or wrong token counts against the ' +
      "client address's budget of failed authentications.",
  })
  // Either the bearer token or no credential (the token unset): the `{}` says it is optional.
  @ApiSecurity({})
  @ApiSecurity(METRICS_TOKEN_SCHEME)
  @ApiOkResponse({
    description: 'Prometheus text exposition format (version 0.0.4)',
    content: {
      'text/plain': {
        schema: { type: 'string' },
        example:
          '# HELP warden_http_requests_total HTTP requests by method, route and status\n' +
          '# TYPE warden_http_requests_total counter\n' +
          'warden_http_requests_total{method="POST",route="/api/v1/items/async",status="202"} 1289\n',
      },
    },
  })
  @ApiErrors(401, 429, 500, 503)
  async metricsText(@Req() request: FastifyRequest): Promise<string> {
    const token = this.config.metricsToken;
    if (token !== undefined && !bearerMatches(request.headers.authorization, token)) {
      await authFailureLimitOf(request)?.charge(request.ip);
      throw unauthorized('GET /metrics needs the Authorization header "Bearer <WARDEN_METRICS_TOKEN>"');
    }
    return this.metrics.exposition();
  }
}

/**
 * Whether `header` is `Bearer <token>` (the scheme in any case, RFC 6750). Compared as digests, so
 * the comparison's time says nothing about the token, not even its length.
 */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const match = /^bearer +(\S+) *$/i.exec(header ?? '');
  if (match === null) return false;
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(match[1]!), digest(token));
}
