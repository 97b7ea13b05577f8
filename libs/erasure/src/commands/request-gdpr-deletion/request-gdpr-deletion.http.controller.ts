import { Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiAcceptedResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { apiKeyCommandContext, CurrentPrincipal, type Principal } from '#warden/platform';
import { ApiCustomerRoute, Idempotent } from '#warden/platform/http';
import { RequestGdprDeletionCommand } from './request-gdpr-deletion.command.js';
import { RequestGdprDeletionRequestDto } from './request-gdpr-deletion.request.dto.js';
import { RequestGdprDeletionResponseDto } from './request-gdpr-deletion.response.dto.js';

@ApiTags('gdpr')
@Controller('api/v1/gdpr/delete')
export class RequestGdprDeletionHttpController {
  constructor(private readonly commands: CommandBus) {}

  @Post()
  @HttpCode(202)
  @ApiOperation({
    operationId: 'requestGdprDeletion',
    summary: "Erase a user's personal data",
    description:
      'Records the request and answers at once; a worker then forgets the data key of the user (`typeId:id`), so the data ' +
      'of their items, the reasons of the reports they filed and their appeals become unreadable everywhere (crypto-' +
      'shredding), purges the read models that copied them, and closes the open review jobs of their items with ' +
      'AUTOMATIC_CLOSE. GET /api/v1/gdpr/delete/{requestId} says when it completed and what it erased. The ids, actions, ' +
      'strikes and counts stay. Idempotent: the same user again, while pending or once completed, records nothing and ' +
      'answers the same `requestId`. A user Warden never saw is accepted and completes with zero counts. 400 when `id` or ' +
      '`typeId` is missing or invalid, or `typeId` is not an item type of kind USER of the organization, or `consoleEmail` ' +
      'names no console user of the organization. With `consoleEmail`, that console account is disabled and its email erased too.',
  })
  @ApiAcceptedResponse({
    type: RequestGdprDeletionResponseDto,
    description: 'Deletion requested',
    example: { requestId: 'a12df902-1681-894b-8af1-5c87c8e95e8e' },
  })
  @ApiCustomerRoute(400, 413, 415)
  // Erasing the same user twice already records nothing, but a key reused for another user must
  // be a 422 and a malformed key a 400, as on every customer POST (docs/api.md).
  @Idempotent()
  async request(
    @Body() body: RequestGdprDeletionRequestDto,
    @CurrentPrincipal() principal: Principal,
    @Req() request: FastifyRequest,
  ): Promise<RequestGdprDeletionResponseDto> {
    return this.commands.execute(
      new RequestGdprDeletionCommand({ id: body.id, typeId: body.typeId }, apiKeyCommandContext(principal, request.id), body.consoleEmail),
    );
  }
}
