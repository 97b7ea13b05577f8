import { Controller, HttpCode, Param, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiOperation, ApiParam } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { consoleCommandContext, type ConsolePrincipal, CurrentUser, RequirePermissions, RecentSignIn } from '#warden/platform';
import { ApiConsoleRoute } from '#warden/platform/http';
import { CreatedApiKeyResponseDto } from '../create-api-key/create-api-key.response.dto.js';
import { RotateApiKeyCommand } from './rotate-api-key.command.js';

@Controller('api/console/v1/api-keys')
export class RotateApiKeyHttpController {
  constructor(private readonly commands: CommandBus) {}

  @Post(':keyId/rotate')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'consoleRotateApiKey',
    summary: 'Rotate a key: a new key replaces it, and it stops working',
    description:
      'The new key (same name and team) is in this response only. 404 for a key the organization does not have; ' + '409 for a key already rotated or revoked.',
  })
  @ApiParam({ name: 'keyId', example: 'key_Q2x1c3Rlcj' })
  @ApiOkResponse({ type: CreatedApiKeyResponseDto, description: 'The key that replaces it, shown this once' })
  @ApiConsoleRoute({ recentSignIn: true }, 404, 409)
  @RequirePermissions('MANAGE_API_KEYS')
  @RecentSignIn()
  async rotate(@Param('keyId') keyId: string, @CurrentUser() user: ConsolePrincipal, @Req() request: FastifyRequest): Promise<CreatedApiKeyResponseDto> {
    const created = await this.commands.execute(new RotateApiKeyCommand(user.orgId, keyId, consoleCommandContext(user, request.id)));
    return { id: created.keyId, prefix: created.prefix, key: created.key };
  }
}
