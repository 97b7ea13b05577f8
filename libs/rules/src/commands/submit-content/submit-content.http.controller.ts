import { Body, Controller, Post, Req, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiAcceptedResponse, ApiExtraModels, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { apiKeyCommandContext, CurrentPrincipal, type Principal } from '#warden/platform';
import { ApiActionCallback } from '#warden/callbacks/http';
import { ApiCustomerRoute, Idempotent } from '#warden/platform/http';
import { SubmitContentCommand, type SubmitContentResult } from './submit-content.command.js';
import { SubmitContentAsyncResponseDto, SubmitContentRequestDto, SubmitContentSyncResponseDto } from './submit-content.request.dto.js';

/** The legacy single-item endpoint (docs/rules.md, "Submitting items"): one item, no image hashing, optionally synchronous. */
@ApiTags('items')
@ApiExtraModels(SubmitContentSyncResponseDto, SubmitContentAsyncResponseDto)
@Controller('api/v1/content')
export class SubmitContentHttpController {
  constructor(private readonly commands: CommandBus) {}

  @Post()
  @ApiOperation({
    operationId: 'submitContent',
    summary: 'Submit one item (legacy)',
    description:
      'Without `sync` (or false) the item is recorded and evaluated asynchronously: 202 as for /api/v1/items/async/. ' +
      'With `sync: true` it is evaluated before answering 200 with the result; the actions are published as usual. ' +
      'No image hashing on this endpoint.',
  })
  @ApiOkResponse({
    type: SubmitContentSyncResponseDto,
    description: "With `sync: true`: the item was recorded and evaluated; each rule's result and the actions published",
    example: {
      contentId: 'post-123',
      rules: [
        { id: 'remove-scams', name: 'Remove scams', status: 'LIVE', result: 'passed' },
        { id: 'flag-links', name: 'Flag links', status: 'BACKGROUND', result: 'failed' },
      ],
      actionsTriggered: [{ id: 'remove', name: 'Remove' }],
    },
  })
  @ApiAcceptedResponse({
    type: SubmitContentAsyncResponseDto,
    description: 'Without `sync` (or with `sync: false`): the item is recorded; the worker evaluates it next',
    example: { accepted: 1, requestId: '68389136-1c0d-41e2-8055-10593b33714f' },
  })
  @ApiCustomerRoute(400, 413, 415)
  @ApiActionCallback()
  @Idempotent()
  async submit(
    @Body() body: SubmitContentRequestDto,
    @CurrentPrincipal() principal: Principal,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<SubmitContentSyncResponseDto | SubmitContentAsyncResponseDto> {
    const context = apiKeyCommandContext(principal, request.id);
    const result: SubmitContentResult = await this.commands.execute(new SubmitContentCommand(body, context));
    if (result.kind === 'accepted') {
      reply.status(202);
      return { accepted: 1, requestId: request.id };
    }
    reply.status(200);
    return result.evaluation;
  }
}
