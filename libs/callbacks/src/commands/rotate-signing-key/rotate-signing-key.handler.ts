import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { SigningKeys } from '../../signing/signing-keys.js';
import { RotateSigningKeyCommand, type RotatedSigningKey } from './rotate-signing-key.command.js';

@CommandHandler(RotateSigningKeyCommand)
export class RotateSigningKeyHandler implements ICommandHandler<RotateSigningKeyCommand> {
  constructor(private readonly keys: SigningKeys) {}

  execute(command: RotateSigningKeyCommand): Promise<RotatedSigningKey> {
    return this.keys.rotate(command.orgId, command.context);
  }
}
