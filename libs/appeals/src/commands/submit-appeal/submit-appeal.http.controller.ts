import { Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiNoContentResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { apiKeyCommandContext, CurrentPrincipal, type Principal } from '#warden/platform';
import { ApiAppealDecisionCallback } from '#warden/callbacks/http';
import { ApiCustomerRoute } from '#warden/platform/http';
import { SubmitAppealCommand } from './submit-appeal.command.js';
import { SubmitAppealRequestDto } from './submit-appeal.request.dto.js';

@ApiTags('reports')
@Controller('api/v1/report')
export class SubmitAppealHttpController {
  constructor(private readonly commands: CommandBus) {}

  @Post('appeal')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'submitAppeal',
    summary: 'Submit a user appeal against a moderation decision',
    description:
      'Records the appeal; it then becomes a review job in the queue the appeal routing rules pick (default: the queue marked ' +
      '`isAppealsDefault`, else the default queue), never offered to the moderator who took the appealed decision. The same ' +
      '`appealId` again is answered 204 and records nothing: the first appeal under an id stands. All or nothing: a 400 or ' +
      '413 lists every problem with its pointer and records nothing.',
  })
  @ApiNoContentResponse({ description: 'Appeal received' })
  @ApiCustomerRoute(400, 413, 415)
  @ApiAppealDecisionCallback()
  async submit(@Body() body: SubmitAppealRequestDto, @CurrentPrincipal() principal: Principal, @Req() request: FastifyRequest): Promise<void> {
    await this.commands.execute(new SubmitAppealCommand(body as unknown as Record<string, unknown>, apiKeyCommandContext(principal, request.id)));
  }
}
