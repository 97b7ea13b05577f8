import { Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiAcceptedResponse, ApiOperation } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { consoleCommandContext, type ConsolePrincipal, CurrentUser, RequirePermissions, RecentSignIn } from '#warden/platform';
import { ApiConsoleRoute } from '#warden/platform/http';
import { BulkActionResponseDto } from './bulk-action.response.dto.js';
import { RequestBulkActionCommand } from './request-bulk-action.command.js';
import { BulkActionRequestDto } from './request-bulk-action.request.dto.js';

@Controller('api/console/v1/bulk-actions')
export class RequestBulkActionHttpController {
  constructor(private readonly commands: CommandBus) {}

  @Post()
  @HttpCode(202)
  @ApiOperation({
    operationId: 'consoleRequestBulkAction',
    summary: 'Execute one action on up to 10,000 items, in the background',
    description:
      'Records one bulk operation (its actor the signed-in user) and answers at once; a background worker executes the action ' +
      'on each stored item as `POST /api/v1/actions` does (its callback, strikes, the item’s open review jobs closed), 100 items ' +
      'a chunk. Items not stored in the organization are counted as missing, never acted on; an item executed already with the ' +
      'same action, policies and reason is not acted on again. All or nothing: a 400 lists every problem with its pointer and ' +
      'records nothing.',
  })
  @ApiAcceptedResponse({ type: BulkActionResponseDto, description: 'Bulk operation recorded' })
  @ApiConsoleRoute({ recentSignIn: true }, 400, 413, 415)
  @RequirePermissions('BULK_ACTIONS')
  @RecentSignIn()
  async request(@Body() body: BulkActionRequestDto, @CurrentUser() user: ConsolePrincipal, @Req() request: FastifyRequest): Promise<BulkActionResponseDto> {
    const view = await this.commands.execute(
      new RequestBulkActionCommand(body as unknown as Record<string, unknown>, consoleCommandContext(user, request.id), {
        userId: user.userId,
        email: user.email,
      }),
    );
    return view as BulkActionResponseDto;
  }
}
