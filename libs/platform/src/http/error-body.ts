import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { type DomainError, errorBodyOf } from '#warden/kernel';

export class ErrorItemDto {
  @ApiProperty({ description: 'HTTP status', example: 400 })
  status!: number;
  @ApiProperty({ description: 'Stable error type ids', type: [String], example: ['/errors/invalid-user-input'] })
  type!: string[];
  @ApiProperty({ description: 'Short description', example: 'Invalid request' })
  title!: string;
  @ApiPropertyOptional({ description: 'Detailed explanation' })
  detail?: string;
  @ApiPropertyOptional({ description: 'JSON pointer (RFC 6901) to the offending field', example: '/items/3/data/text' })
  pointer?: string;
  @ApiPropertyOptional({ description: 'Correlation id; also in the X-Request-Id response header' })
  requestId?: string;
}

/** The one error body (docs/api.md, "Errors"). */
export class ErrorBodyDto {
  @ApiProperty({ type: [ErrorItemDto] })
  errors!: ErrorItemDto[];
}

export function errorBody(error: DomainError, requestId: string | undefined): ErrorBodyDto {
  return errorBodyOf(error, requestId);
}
