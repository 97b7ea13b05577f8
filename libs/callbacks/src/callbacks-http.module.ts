import { Module } from '@nestjs/common';
import { GetSigningKeysHttpController } from './queries/get-signing-keys/get-signing-keys.http.controller.js';
import { ListDeliveriesHttpController } from './queries/list-deliveries/list-deliveries.http.controller.js';
import { ConsoleListDeliveriesHttpController } from './queries/list-deliveries/console-list-deliveries.http.controller.js';
import { RedeliverCallbackHttpController } from './commands/redeliver-callback/redeliver-callback.http.controller.js';

/**
 * The callbacks module's routes: signing keys and deliveries (customer API), deliveries and
 * redelivery (console).
 * Its controllers only use the command and query buses; the handlers are CallbacksModule's,
 * composed by every process, while this module is composed only where HTTP is served.
 */
@Module({
  controllers: [GetSigningKeysHttpController, ListDeliveriesHttpController, ConsoleListDeliveriesHttpController, RedeliverCallbackHttpController],
})
export class CallbacksHttpModule {}
