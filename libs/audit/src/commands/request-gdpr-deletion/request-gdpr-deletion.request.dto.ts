import { ApiProperty } from '@nestjs/swagger';
import { IsCustomerId } from '#warden/platform/http';

/** Body of POST /api/v1/gdpr/delete (interface spec 4.10): the user whose data to erase. */
export class RequestGdprDeletionRequestDto {
  @ApiProperty({ description: "The customer's id of the user (the id of the user item)", example: 'u-42' })
  @IsCustomerId()
  id!: string;

  @ApiProperty({ description: 'The item type id of the user: an item type of kind USER', example: 'user' })
  @IsCustomerId()
  typeId!: string;
}
