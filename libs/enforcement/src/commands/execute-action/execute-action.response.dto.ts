import { ApiProperty } from '@nestjs/swagger';

export class ExecuteActionResponseDto {
  @ApiProperty({ description: 'Unique id of this execution, assigned by the service', example: 'exe_3q2mYV0bH8kP1sXa' })
  executionId!: string;
}
