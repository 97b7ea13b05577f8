import { Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiCreatedResponse, ApiOperation } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { consoleCommandContext, type ConsolePrincipal, CurrentUser, RequirePermissions, RecentSignIn } from '#warden/platform';
import { ApiConsoleRoute } from '#warden/platform/http';
import { CreateApiKeyCommand } from './create-api-key.command.js';
import { CreateApiKeyRequestDto } from './create-api-key.request.dto.js';
import { CreatedApiKeyResponseDto } from './create-api-key.response.dto.js';

@Controller('api/console/v1/api-keys')
export class CreateApiKeyHttpController {
  constructor(private readonly commands: CommandBus) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({ operationId: 'consoleCreateApiKey', summary: 'Create an API key for the organization; the key is in this response only' })
  @ApiCreatedResponse({ type: CreatedApiKeyResponseDto, description: 'The new key, shown this once' })
  @ApiConsoleRoute({ recentSignIn: true }, 400)
  @RequirePermissions('MANAGE_API_KEYS')
  @RecentSignIn()
  async create(@Body() body: CreateApiKeyRequestDto, @CurrentUser() user: ConsolePrincipal, @Req() request: FastifyRequest): Promise<CreatedApiKeyResponseDto> {
    const created = await this.commands.execute(
      new CreateApiKeyCommand(user.orgId, body.name ?? null, body.team ?? null, consoleCommandContext(user, request.id)),
    );
    return { id: created.keyId, prefix: created.prefix, key: created.key };
  }
}
