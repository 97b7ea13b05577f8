import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString } from 'class-validator';

/** The export's bounds as sent; their format is checked by the handler. */
export class ExportAuditRequestDto {
  @ApiPropertyOptional({
    format: 'date-time',
    example: '2026-03-01T00:00:00Z',
    description: 'From the first event that occurred at or after this time. Default: the first event',
  })
  @IsOptional()
  @IsString({ message: 'expected an ISO 8601 datetime' })
  from?: string;

  @ApiPropertyOptional({
    format: 'date-time',
    example: '2026-03-31T23:59:59Z',
    description: 'Up to the last event before the first that occurred after this time. Default: the head of the chain',
  })
  @IsOptional()
  @IsString({ message: 'expected an ISO 8601 datetime' })
  to?: string;

  @ApiPropertyOptional({
    enum: ['true', 'false'],
    default: 'false',
    description:
      'Personal fields in plaintext: EXPORT_AUDIT_PERSONAL_DATA (ADMIN), or AUDITOR while the organization grants it ' +
      '(`org.settings.auditorPersonalData`); 403 otherwise (ANALYST included)',
  })
  @IsOptional()
  @IsIn(['true', 'false'], { message: 'includePersonalData must be true or false' })
  includePersonalData?: 'true' | 'false';
}
