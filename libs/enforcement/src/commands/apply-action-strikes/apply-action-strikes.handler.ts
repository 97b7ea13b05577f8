import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { ApplyActionStrikesCommand } from '#warden/rules';
import { StrikeApplier } from '../../strikes/strike-applier.js';

/** The callbacks module asks here for the count its action callback carries (`userStrikeCount`). */
@CommandHandler(ApplyActionStrikesCommand)
export class ApplyActionStrikesHandler implements ICommandHandler<ApplyActionStrikesCommand> {
  constructor(private readonly strikes: StrikeApplier) {}

  execute(command: ApplyActionStrikesCommand): Promise<number | null> {
    return this.strikes.countAfter(command.action);
  }
}
