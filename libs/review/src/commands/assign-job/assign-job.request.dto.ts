import { ApiProperty } from '@nestjs/swagger';
import { IsNonEmptyString } from '#warden/platform/http';

export class AssignJobRequestDto {
  @ApiProperty({
    description: 'An active user of the organization who may decide jobs (DECIDE_MRT; VIEW_CHILD_SAFETY_DATA for the child-safety queue)',
    example: 'usr_Q2x1c3Rlcj',
  })
  @IsNonEmptyString()
  userId!: string;
}
