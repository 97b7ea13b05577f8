import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import { IsCustomerId } from '#warden/platform/http';

/** Body of POST /api/v1/gdpr/delete (docs/gdpr.md, "The request"): the user whose data to erase. */
export class RequestGdprDeletionRequestDto {
  @ApiProperty({ description: "The customer's id of the user (the id of the user item)", example: 'u-42' })
  @IsCustomerId()
  id!: string;

  @ApiProperty({ description: 'The item type id of the user: an item type of kind USER', example: 'user' })
  @IsCustomerId()
  typeId!: string;

  @ApiPropertyOptional({
    description:
      "The user's email address as a console user of your organization, when the same person also has a console account: " +
      'the account is disabled and its email erased with the rest (400 when no console user of the organization has it)',
    example: 'ann@example.com',
    maxLength: 320,
  })
  @IsOptional()
  @IsString({ message: 'expected a string' })
  @MaxLength(320, { message: 'expected at most 320 characters' })
  consoleEmail?: string;
}
