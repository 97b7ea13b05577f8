import { Body, Controller, Param, Post, Put, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiParam } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { DefineQueueCommand } from '#warden/catalog';
import { consoleCommandContext, type ConsolePrincipal, CurrentUser, RequirePermissions } from '#warden/platform';
import { ApiConsoleRoute } from '#warden/platform/http';
import { CreateQueueRequestDto, QueueDefinitionRequestDto } from './define-queue.request.dto.js';
import { QueueDefinitionResponseDto } from './queue.response.dto.js';

/** The fields the request gave (the DTO instance has every declared field, undefined when left out). */
const given = (body: object): Record<string, unknown> => Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined));

const RECORDED =
  "Checked as the configuration file's `queues:` entries are, and recorded in the configuration history (a QueueDefined on the organization's configuration stream, with you as actor): `warden apply --dry-run` lists it as drift with what apply would do to it (overwrite, archive with --prune, or leave it under console management).";

@Controller('api/console/v1/queues')
export class DefineQueueHttpController {
  constructor(private readonly commands: CommandBus) {}

  @Post()
  @ApiOperation({
    operationId: 'consoleCreateQueue',
    summary: 'Create a review queue',
    description: `${RECORDED} 400 with a pointer for what the file would refuse (the reserved \`child-safety\` id, a second default). 409 when a queue with the id exists, or the configuration changed concurrently.`,
  })
  @ApiCreatedResponse({ type: QueueDefinitionResponseDto, description: 'The queue as defined' })
  @ApiConsoleRoute({}, 400, 409)
  @RequirePermissions('EDIT_MRT_QUEUES')
  async create(
    @Body() body: CreateQueueRequestDto,
    @CurrentUser() user: ConsolePrincipal,
    @Req() request: FastifyRequest,
  ): Promise<QueueDefinitionResponseDto> {
    const result = await this.commands.execute(new DefineQueueCommand(user.orgId, 'create', null, given(body), consoleCommandContext(user, request.id)));
    return result.queue;
  }

  @Put(':queueId')
  @ApiOperation({
    operationId: 'consoleUpdateQueue',
    summary: 'Replace the definition of a review queue',
    description: `The whole definition: a field left out takes its file default. ${RECORDED} An unchanged definition records nothing. 404 for an unknown queue (the built-in queues are not declared and cannot be changed here). 409 when the queue is managed by the organization's configuration file (\`managedBy: file\` in the list; the detail names the file) and the file does not hand queues to the console (\`management: { queues: console }\`), or when the configuration changed concurrently.`,
  })
  @ApiParam({ name: 'queueId', example: 'hate-speech' })
  @ApiOkResponse({ type: QueueDefinitionResponseDto, description: 'The queue as now defined' })
  @ApiConsoleRoute({}, 400, 404, 409)
  @RequirePermissions('EDIT_MRT_QUEUES')
  async update(
    @Param('queueId') queueId: string,
    @Body() body: QueueDefinitionRequestDto,
    @CurrentUser() user: ConsolePrincipal,
    @Req() request: FastifyRequest,
  ): Promise<QueueDefinitionResponseDto> {
    const result = await this.commands.execute(new DefineQueueCommand(user.orgId, 'update', queueId, given(body), consoleCommandContext(user, request.id)));
    return result.queue;
  }
}
