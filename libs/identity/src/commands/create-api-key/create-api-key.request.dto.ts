import { ApiPropertyOptional } from '@nestjs/swagger';
import { MaxLength } from 'class-validator';
import { IsNonEmptyString, WhenPresent } from '#warden/platform/http';

export class CreateApiKeyRequestDto {
  @ApiPropertyOptional({ description: 'A name to tell the key apart', maxLength: 100, example: 'moderation backend' })
  @WhenPresent()
  @IsNonEmptyString()
  @MaxLength(100, { message: 'a key name is at most 100 characters' })
  name?: string;
  @ApiPropertyOptional({ description: 'The team the key is scoped to', maxLength: 100, example: 'trust-and-safety' })
  @WhenPresent()
  @IsNonEmptyString()
  @MaxLength(100, { message: 'a team is at most 100 characters' })
  team?: string;
}
