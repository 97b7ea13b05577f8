import { Controller, HttpCode, Param, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiOperation, ApiParam } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { consoleCommandContext, type ConsolePrincipal, CurrentUser, RequirePermissions } from '#warden/platform';
import { ApiConsoleRoute } from '#warden/platform/http';
import { BulkActionResponseDto } from '../request-bulk-action/bulk-action.response.dto.js';
import { CancelBulkActionCommand } from './cancel-bulk-action.command.js';

@Controller('api/console/v1/bulk-actions')
export class CancelBulkActionHttpController {
  constructor(private readonly commands: CommandBus) {}

  @Post(':bulkActionId/cancel')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'consoleCancelBulkAction',
    summary: 'Cancel a bulk operation: no further chunk starts; what was executed stays',
    description:
      'The chunk under way finishes and is counted. Cancelling a cancelled operation changes nothing; 409 (`/errors/conflict`) ' +
      'for a completed one; 404 for an unknown one or another organization’s.',
  })
  @ApiParam({ name: 'bulkActionId' })
  @ApiOkResponse({ type: BulkActionResponseDto, description: 'The operation, cancelled' })
  @ApiConsoleRoute({}, 400, 404, 409)
  @RequirePermissions('BULK_ACTIONS')
  async cancel(
    @Param('bulkActionId') bulkActionId: string,
    @CurrentUser() user: ConsolePrincipal,
    @Req() request: FastifyRequest,
  ): Promise<BulkActionResponseDto> {
    return (await this.commands.execute(new CancelBulkActionCommand(bulkActionId, consoleCommandContext(user, request.id)))) as BulkActionResponseDto;
  }
}
