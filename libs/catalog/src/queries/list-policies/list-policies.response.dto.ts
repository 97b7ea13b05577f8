import { ApiProperty } from '@nestjs/swagger';
import { PENALTIES, type Penalty } from '../../domain/catalog.model.js';

export class PolicyDto {
  @ApiProperty({ description: 'Unique, immutable policy id', example: 'spam' })
  id!: string;
  @ApiProperty({ description: 'Display name; may change', example: 'Spam' })
  name!: string;
  @ApiProperty({ description: 'Parent policy id; null for a top-level policy', type: String, nullable: true })
  parentId!: string | null;
  @ApiProperty({ type: String, nullable: true })
  policyText!: string | null;
  @ApiProperty({ description: 'Guidance for enforcement', type: String, nullable: true })
  enforcementGuidelines!: string | null;
  @ApiProperty({ description: 'Category, for example VIOLENCE', type: String, nullable: true, example: 'SPAM' })
  policyType!: string | null;
  @ApiProperty({ description: 'Policy version: 1 when created, +1 on every change', example: 1 })
  semanticVersion!: number;
  @ApiProperty({ description: 'Configured user strike count', example: 1 })
  userStrikeCount!: number;
  @ApiProperty({ description: 'Whether child policies inherit the strike configuration' })
  applyUserStrikeCountConfigToChildren!: boolean;
  @ApiProperty({ enum: PENALTIES, example: 'LOW' })
  penalty!: Penalty;
}

export class ListPoliciesResponseDto {
  @ApiProperty({ type: [PolicyDto], description: 'All policies of the organization; rebuild the tree from parentId' })
  policies!: PolicyDto[];
}
