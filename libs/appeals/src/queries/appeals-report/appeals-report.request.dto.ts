import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';

/** The window's bounds as sent; their format is checked with the window (report-window.ts). */
export class AppealsReportRequestDto {
  @ApiPropertyOptional({
    format: 'date-time',
    example: '2026-03-01T00:00:00Z',
    description: 'Appeals appealed at or after this time. Default: 30 days before `to`',
  })
  @IsOptional()
  @IsString({ message: 'expected an ISO 8601 datetime' })
  from?: string;

  @ApiPropertyOptional({ format: 'date-time', example: '2026-03-31T23:59:59Z', description: 'Appeals appealed at or before this time. Default: now' })
  @IsOptional()
  @IsString({ message: 'expected an ISO 8601 datetime' })
  to?: string;
}
