import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { QueryInteger } from '#warden/platform/http';

export class ListChildSafetyReportsRequestDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 50, description: 'Page size' })
  @IsOptional()
  @QueryInteger(1, 100)
  limit?: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 0, default: 0, description: "Reports to skip: pass the previous page's `nextOffset`" })
  @IsOptional()
  @QueryInteger(0)
  offset?: number;
}
