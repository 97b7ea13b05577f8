import { Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiCreatedResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { apiKeyCommandContext, CurrentPrincipal, type Principal } from '#warden/platform';
import { ApiActionCallback } from '#warden/callbacks/http';
import { ApiCustomerRoute, Idempotent } from '#warden/platform/http';
import { SubmitReportCommand } from './submit-report.command.js';
import { SubmitReportRequestDto } from './submit-report.request.dto.js';
import { SubmitReportResponseDto } from './submit-report.response.dto.js';

@ApiTags('reports')
@Controller('api/v1/report')
export class SubmitReportHttpController {
  constructor(private readonly commands: CommandBus) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({
    operationId: 'submitReport',
    summary: 'Submit a user report',
    description:
      'Records the report and the reported item (as a new item version, evaluated by the rules like a submitted item); the ' +
      'report then becomes a review job in the queue its routing picks (`csam: true`: the child-safety queue). All or ' +
      'nothing: a 400 or 413 lists every problem with its pointer and records nothing.',
  })
  @ApiCreatedResponse({
    type: SubmitReportResponseDto,
    description: 'The report is recorded; its review job opens next',
    example: { reportId: 'rpt_3q2mYV0bH8kP1sXa' },
  })
  @ApiCustomerRoute(400, 413, 415)
  @ApiActionCallback()
  @Idempotent()
  async submit(
    @Body() body: SubmitReportRequestDto,
    @CurrentPrincipal() principal: Principal,
    @Req() request: FastifyRequest,
  ): Promise<SubmitReportResponseDto> {
    return this.commands.execute(new SubmitReportCommand(body as unknown as Record<string, unknown>, apiKeyCommandContext(principal, request.id)));
  }
}
