import { Module } from '@nestjs/common';
import { GetSigningKeysHttpController } from './queries/get-signing-keys/get-signing-keys.http.controller.js';
import { ListDeliveriesHttpController } from './queries/list-deliveries/list-deliveries.http.controller.js';

/**
 * The callbacks module's routes of the customer API: signing keys and deliveries.
 * Its controllers only use the command and query buses; the handlers are CallbacksModule's,
 * composed by every process, while this module is composed only where HTTP is served.
 */
@Module({ controllers: [GetSigningKeysHttpController, ListDeliveriesHttpController] })
export class CallbacksHttpModule {}
