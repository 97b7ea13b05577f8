import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsOptional } from 'class-validator';
import { IsIntegerInRange } from '#warden/platform/http';

export class ListChildSafetyReportsRequestDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 50, description: 'Page size' })
  @IsOptional()
  @Type(() => Number)
  @IsIntegerInRange(1, 100)
  limit?: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 0, default: 0, description: "Reports to skip: pass the previous page's `nextOffset`" })
  @IsOptional()
  @Type(() => Number)
  @IsIntegerInRange(0)
  offset?: number;
}
