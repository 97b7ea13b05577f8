import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { IsCustomerId } from '#warden/platform/http';
import { LOOKUP_KINDS, type LookupKind } from './find-investigation.query.js';

export class FindInvestigationRequestDto {
  @ApiProperty({ enum: LOOKUP_KINDS, description: 'What the id names' })
  @IsIn(LOOKUP_KINDS, { message: `kind must be one of ${LOOKUP_KINDS.join(', ')}` })
  kind!: LookupKind;

  @ApiProperty({ description: 'The id: an item, a user, a report, a review job or a callback delivery', example: 'p-1' })
  @IsCustomerId()
  id!: string;

  @ApiPropertyOptional({ description: 'The item type: required for an item or a user', example: 'post' })
  @IsOptional()
  @IsCustomerId()
  typeId?: string;
}
