import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { SigningKeys } from '../../signing/signing-keys.js';
import { RetireSigningKeyCommand } from './retire-signing-key.command.js';

@CommandHandler(RetireSigningKeyCommand)
export class RetireSigningKeyHandler implements ICommandHandler<RetireSigningKeyCommand> {
  constructor(private readonly keys: SigningKeys) {}

  execute(command: RetireSigningKeyCommand): Promise<boolean> {
    return this.keys.retire(command.orgId, command.kid, command.context);
  }
}
