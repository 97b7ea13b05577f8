import { Controller, HttpCode, Param, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiAcceptedResponse, ApiOperation } from '@nestjs/swagger';
import { consoleActor, type ConsolePrincipal, CurrentUser, RequirePermissions } from '#warden/platform';
import { ApiConsoleRoute } from '#warden/platform/http';
import { conflict } from '#warden/kernel';
import { RedeliverCallbackCommand } from './redeliver-callback.command.js';
import { RedeliverCallbackRequestDto } from './redeliver-callback.request.dto.js';
import { RedeliveryResponseDto } from './redeliver-callback.response.dto.js';

/** What `warden callbacks redeliver <deliveryId> --org <orgId>` does, for the console's admins. */
@Controller('api/console/v1/callbacks/deliveries')
export class RedeliverCallbackHttpController {
  constructor(private readonly commands: CommandBus) {}

  @Post(':deliveryId/redeliver')
  @HttpCode(202)
  @ApiOperation({
    operationId: 'consoleRedeliverCallback',
    summary: 'Send a callback delivery again: a fresh attempt cycle, same delivery id and body',
    description:
      'To the callback URL and headers configured now. The worker sends it at once and retries it as any delivery. ' +
      'A delivered delivery may be sent again too (the receiver dedupes on `Service-Delivery-Id`). 404 for an unknown ' +
      "delivery or another organization's; 409 (`/errors/conflict`) while an attempt is due or under way, or when no " +
      'callback URL is configured for it.',
  })
  @ApiAcceptedResponse({ type: RedeliveryResponseDto, description: 'Redelivery requested' })
  @ApiConsoleRoute({}, 400, 404, 409)
  @RequirePermissions('MANAGE_CALLBACKS')
  async redeliver(@Param() params: RedeliverCallbackRequestDto, @CurrentUser() user: ConsolePrincipal): Promise<RedeliveryResponseDto> {
    const report = await this.commands.execute(new RedeliverCallbackCommand({ deliveryId: params.deliveryId, orgId: user.orgId }, consoleActor(user)));
    const started = report.redelivered[0];
    // The decider recorded nothing new (the delivery is already being sent again): nothing to start.
    if (!started) throw conflict(`Callback delivery ${params.deliveryId} was not sent again: a redelivery is already under way`);
    return { deliveryId: started.deliveryId, cycle: started.cycle };
  }
}
