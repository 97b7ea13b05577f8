import { Controller, Get, Param } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiOperation, ApiParam } from '@nestjs/swagger';
import { type ConsolePrincipal, CurrentUser, RequirePermissions } from '#warden/platform';
import { ApiConsoleRoute } from '#warden/platform/http';
import { BulkActionResponseDto } from '../../commands/request-bulk-action/bulk-action.response.dto.js';
import { GetBulkActionQuery } from './get-bulk-action.query.js';

@Controller('api/console/v1/bulk-actions')
export class GetBulkActionHttpController {
  constructor(private readonly queries: QueryBus) {}

  @Get(':bulkActionId')
  @ApiOperation({
    operationId: 'consoleGetBulkAction',
    summary: 'A bulk operation and its progress',
    description: 'Read from the operation’s own stream, so never behind. 404 for an unknown one or another organization’s.',
  })
  @ApiParam({ name: 'bulkActionId' })
  @ApiOkResponse({ type: BulkActionResponseDto, description: 'The operation' })
  @ApiConsoleRoute({}, 400, 404)
  @RequirePermissions('BULK_ACTIONS')
  async get(@Param('bulkActionId') bulkActionId: string, @CurrentUser() user: ConsolePrincipal): Promise<BulkActionResponseDto> {
    return (await this.queries.execute(new GetBulkActionQuery(user.orgId, bulkActionId))) as BulkActionResponseDto;
  }
}
