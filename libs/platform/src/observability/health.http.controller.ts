import { Controller, Get, Header, Inject } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { unavailable } from '#warden/kernel';
import { Public } from '../auth/principal.js';
import { ApiErrors } from '../openapi/api-errors.decorator.js';
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
  @ApiOperation({ operationId: 'getMetrics', summary: 'Prometheus metrics: request rates and latencies, event-store appends, projection lag' })
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
  @ApiErrors(500, 503)
  async metricsText(): Promise<string> {
    return this.metrics.exposition();
  }
}
