import { Controller, HttpCode, Param, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiNoContentResponse, ApiOperation, ApiParam } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { consoleCommandContext, type ConsolePrincipal, CurrentUser, RequirePermissions, RecentSignIn } from '#warden/platform';
import { ApiConsoleRoute } from '#warden/platform/http';
import { RevokeApiKeyCommand } from './revoke-api-key.command.js';

@Controller('api/console/v1/api-keys')
export class RevokeApiKeyHttpController {
  constructor(private readonly commands: CommandBus) {}

  @Post(':keyId/revoke')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'consoleRevokeApiKey',
    summary: 'Revoke a key: it stops working (within about a second on every server)',
    description: 'Revoking a revoked key changes nothing. 404 for a key the organization does not have.',
  })
  @ApiParam({ name: 'keyId', example: 'key_Q2x1c3Rlcj' })
  @ApiNoContentResponse({ description: 'Revoked' })
  @ApiConsoleRoute({ recentSignIn: true }, 404)
  @RequirePermissions('MANAGE_API_KEYS')
  @RecentSignIn()
  async revoke(@Param('keyId') keyId: string, @CurrentUser() user: ConsolePrincipal, @Req() request: FastifyRequest): Promise<void> {
    await this.commands.execute(new RevokeApiKeyCommand(user.orgId, keyId, consoleCommandContext(user, request.id)));
  }
}
