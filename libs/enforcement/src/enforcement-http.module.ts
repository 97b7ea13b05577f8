import { Module } from '@nestjs/common';

/** The enforcement module's routes; its controllers only use the command and query buses. */
@Module({
  controllers: [],
})
export class EnforcementHttpModule {}
