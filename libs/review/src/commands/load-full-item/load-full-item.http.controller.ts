import { Controller, HttpCode, Param, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiOperation, ApiParam } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { consoleCommandContext, type ConsolePrincipal, CurrentUser, RequirePermissions } from '#warden/platform';
import { ApiConsoleRoute } from '#warden/platform/http';
import { type FullItemReport, LoadFullItemCommand } from './load-full-item.command.js';
import { LoadFullItemResponseDto } from './load-full-item.response.dto.js';

@Controller('api/console/v1/jobs')
export class LoadFullItemHttpController {
  constructor(private readonly commands: CommandBus) {}

  @Post(':jobId/full-item')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'consoleLoadFullItem',
    summary: "Load the full item: fetch the job's item, and related items Warden never received, from the organization's partial-items endpoint",
    description:
      "Each is recorded as a new item version (source partial-fetch) that the job view then shows; within the endpoint's cache time an item is answered without a request. " +
      'A failure (no endpoint configured, timeout, error status, refused address, invalid answer) is reported per item with its reason, not as an error status (docs/partial-items.md). ' +
      '404 for a job of another organization, or of the child-safety queue without VIEW_CHILD_SAFETY_DATA.',
  })
  @ApiParam({ name: 'jobId' })
  @ApiOkResponse({ type: LoadFullItemResponseDto, description: 'What was fetched, per item' })
  @ApiConsoleRoute({}, 404)
  @RequirePermissions('VIEW_MRT')
  async load(@Param('jobId') jobId: string, @CurrentUser() user: ConsolePrincipal, @Req() request: FastifyRequest): Promise<FullItemReport> {
    return this.commands.execute(new LoadFullItemCommand(user.orgId, jobId, user, consoleCommandContext(user, request.id)));
  }
}
