import { ApiProperty } from '@nestjs/swagger';
import { IsCustomerId } from '#warden/platform/http';

/** Query parameters of GET /api/v1/user_scores (docs/configuration-as-code.md, "The `scores:` section and user scores"). */
export class GetUserScoreRequestDto {
  @ApiProperty({ description: "The customer's user identifier (the id of the user item)", example: 'u-42' })
  @IsCustomerId()
  id!: string;

  @ApiProperty({ description: 'Item type id of the user type (an item type of kind USER)', example: 'user' })
  @IsCustomerId()
  typeId!: string;
}
