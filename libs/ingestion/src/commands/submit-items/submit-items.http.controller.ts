import { Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiAcceptedResponse, ApiCallbacks, ApiExtraModels, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { apiKeyCommandContext, CurrentPrincipal, type Principal } from '#warden/platform';
import { ApiActionCallback } from '#warden/callbacks/http';
import { ApiCustomerRoute, Idempotent } from '#warden/platform/http';
import { SubmitItemsCommand } from './submit-items.command.js';
import { PartialItemsAnswerDto, PartialItemsRequestDto } from './partial-items.callback.dto.js';
import { SubmitItemsRequestDto, SubmitItemsResponseDto } from './submit-items.request.dto.js';

@ApiTags('items')
@Controller('api/v1/items/async')
export class SubmitItemsHttpController {
  constructor(private readonly commands: CommandBus) {}

  @Post()
  @HttpCode(202)
  @ApiOperation({
    operationId: 'submitItems',
    summary: 'Submit items for rule evaluation',
    description: 'Asynchronous: on 202 the items are durably recorded; evaluation follows in the worker.',
  })
  @ApiAcceptedResponse({
    type: SubmitItemsResponseDto,
    description: 'The items are recorded; the worker evaluates them next',
    example: { accepted: 2, requestId: '6f1c0f5e-4b7a-4c2e-9d0a-8e5b2f7c1a93' },
  })
  @ApiCustomerRoute(400, 413, 415)
  @ApiActionCallback()
  @ApiExtraModels(PartialItemsRequestDto, PartialItemsAnswerDto)
  @ApiCallbacks({
    // The partial-items interface (docs/partial-items.md): implemented by the customer, called by Warden.
    name: 'partialItems',
    // A constant key: the URL is the organization's partialItems.url, which no request carries.
    callbackUrl: 'https://platform.example/warden/items',
    method: 'post',
    requestBody: { type: PartialItemsRequestDto },
    expectedResponse: {
      status: 200,
      description:
        "The organization's partialItems endpoint (configuration file, `partialItems.url`), implemented by the customer: Warden POSTs a PartialItemsRequestDto " +
        'for items sent with typeSchemaVariant partial whose rules need fields they lack (and for related items and the console). Signed like callbacks ' +
        '(Service-Signature over `<t>.<Service-Delivery-Id>.<raw body>`, the keys of GET /api/v1/signing_keys), with the configured headers. Answer 200 ' +
        'with a PartialItemsAnswerDto body (#/components/schemas/PartialItemsAnswerDto); 429 and 5xx are retried with backoff, other statuses are not. See docs/partial-items.md',
    },
  })
  @Idempotent()
  async submit(@Body() body: SubmitItemsRequestDto, @CurrentPrincipal() principal: Principal, @Req() request: FastifyRequest): Promise<SubmitItemsResponseDto> {
    const accepted = await this.commands.execute(new SubmitItemsCommand(body.items, apiKeyCommandContext(principal, request.id)));
    return { accepted: accepted.length, requestId: request.id };
  }
}
