import { Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { ErrorFilter } from './http/error.filter.js';
import { RouteTable } from './http/route-table.js';
import { HealthHttpController } from './observability/health.http.controller.js';

/**
 * The platform's HTTP side, which every server role composes and the CLI never does: the
 * error filter (docs/api.md, "Errors"), the route table behind 404 and 405, and the health routes.
 */
@Module({
  controllers: [HealthHttpController],
  providers: [RouteTable, { provide: APP_FILTER, useClass: ErrorFilter }],
})
export class PlatformHttpModule {}
