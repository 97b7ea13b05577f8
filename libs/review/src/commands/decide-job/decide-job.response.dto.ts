import { ApiProperty } from '@nestjs/swagger';
import { APPEAL_DECISION_TYPES, MODERATOR_DECISION_TYPES } from '../../domain/decision-check.js';

export class DecisionSummaryDto {
  @ApiProperty({ example: 'f6c3a1d0-7b0e-4c1e-9a52-3f3e4d2b1a90' })
  jobId!: string;

  @ApiProperty({ description: "The decision's id (a fresh UUID)", example: '01964f0e-8d1c-7c3a-b5a2-8f4e2d9c1b07' })
  decisionId!: string;

  @ApiProperty({ enum: [...MODERATOR_DECISION_TYPES, ...APPEAL_DECISION_TYPES] })
  type!: string;

  @ApiProperty({
    type: [String],
    description: 'The action callbacks requested, one per chosen customer-defined action: follow them in GET /api/v1/callbacks/deliveries',
  })
  deliveryIds!: string[];
}
