import { ApiProperty } from '@nestjs/swagger';
import { BLUR_LEVELS, type BlurLevel, MEDIA_LOADING, type MediaLoading } from '../../domain/catalog.model.js';

export class ConsoleOrganizationDto {
  @ApiProperty({ description: 'Organization id', example: 'acme' })
  id!: string;
  @ApiProperty({ description: 'Display name (`org.name` of the configuration)', example: 'Acme Social' })
  name!: string;
}

export class WellnessSettingsDto {
  @ApiProperty({
    type: 'integer',
    enum: [...BLUR_LEVELS],
    example: 2,
    description: 'Blur of graphic media until a moderator reveals it: 0 none, 3 most (`org.settings.wellness.blur`, default 2)',
  })
  blur!: BlurLevel;
  @ApiProperty({ description: 'Graphic media shown in greyscale (default true)' })
  greyscale!: boolean;
  @ApiProperty({ type: 'integer', minimum: 0, example: 0, description: 'Suggest a break after this many graphic items; 0: never (default)' })
  breakAfterItems!: number;
  @ApiProperty({
    enum: [...MEDIA_LOADING],
    example: 'ON_OPEN',
    description:
      "When the moderator's browser loads an item's images and video, straight from their URLs: `ON_OPEN` (default) with the job, shown blurred until revealed; `ON_REVEAL` only once revealed, so that a media host (which may be the author's) learns nothing of a job merely opened (`org.settings.wellness.loadMedia`)",
  })
  loadMedia!: MediaLoading;
}

export class ConsoleSettingsResponseDto {
  @ApiProperty({ type: ConsoleOrganizationDto })
  org!: ConsoleOrganizationDto;
  @ApiProperty({ description: 'Every decision needs a non-blank `reason` (`org.settings.requireDecisionReason`)' })
  requireDecisionReason!: boolean;
  @ApiProperty({ description: 'A `CUSTOM_ACTION` decision needs at least one policy (`org.settings.requirePolicyForDecisions`)' })
  requirePolicyForDecisions!: boolean;
  @ApiProperty({ type: WellnessSettingsDto, description: 'How the console shows graphic media (`org.settings.wellness`)' })
  wellness!: WellnessSettingsDto;
}
