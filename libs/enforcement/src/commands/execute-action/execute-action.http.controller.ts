import { Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiAcceptedResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { apiKeyCommandContext, CurrentPrincipal, type Principal } from '#warden/platform';
import { ApiActionCallback } from '#warden/callbacks/http';
import { ApiCustomerRoute, Idempotent } from '#warden/platform/http';
import { ExecuteActionCommand } from './execute-action.command.js';
import { ExecuteActionRequestDto } from './execute-action.request.dto.js';
import { ExecuteActionResponseDto } from './execute-action.response.dto.js';

@ApiTags('enforcement')
@Controller('api/v1/actions')
export class ExecuteActionHttpController {
  constructor(private readonly commands: CommandBus) {}

  @Post()
  @HttpCode(202)
  @ApiOperation({
    operationId: 'executeAction',
    summary: 'Execute an action',
    description:
      'Records the execution and answers at once; what follows is asynchronous. A customer-defined action sends its ' +
      'action callback as for a moderator decision (`rules: []`, the policies given, no actor fields), with `creator` and ' +
      '`userStrikeCount` when the user is known, and applies its strikes; a built-in enqueue action puts the item into ' +
      'review (source `POST_ACTIONS`). Open review jobs of `reportedItems` close with AUTOMATIC_CLOSE. Each request is a ' +
      'new execution: send an Idempotency-Key to make a retry safe. All or nothing: a 400 lists every problem with its ' +
      'pointer and records nothing.',
  })
  @ApiAcceptedResponse({ type: ExecuteActionResponseDto, description: 'Execution recorded', example: { executionId: 'exe_FQjvqpimFxbzE063' } })
  @ApiCustomerRoute(400, 413, 415)
  @ApiActionCallback()
  @Idempotent()
  async execute(
    @Body() body: ExecuteActionRequestDto,
    @CurrentPrincipal() principal: Principal,
    @Req() request: FastifyRequest,
  ): Promise<ExecuteActionResponseDto> {
    const { executionId } = await this.commands.execute(
      new ExecuteActionCommand(body as unknown as Record<string, unknown>, apiKeyCommandContext(principal, request.id)),
    );
    return { executionId };
  }
}
