import { ApiProperty } from '@nestjs/swagger';
import { FIELD_TYPES, PENALTIES, type FieldType, type Penalty } from '../../domain/catalog.model.js';
import type { ActionType } from './list-actions.query.js';

export class ActionParameterDto {
  @ApiProperty({ example: 'durationDays' })
  name!: string;
  @ApiProperty({ enum: FIELD_TYPES, example: 'NUMBER' })
  type!: FieldType;
  @ApiProperty()
  required!: boolean;
}

export class ActionDto {
  @ApiProperty({ example: 'remove' })
  id!: string;
  @ApiProperty({ example: 'Remove content' })
  name!: string;
  @ApiProperty({ type: String, nullable: true })
  description!: string | null;
  @ApiProperty({
    enum: ['CUSTOM_ACTION', 'ENQUEUE_TO_MRT', 'ENQUEUE_TO_CHILD_SAFETY'],
    description: 'CUSTOM_ACTION for customer-defined actions; the built-ins have their own types',
  })
  actionType!: ActionType;
  @ApiProperty()
  applyUserStrikes!: boolean;
  @ApiProperty({ enum: PENALTIES })
  penalty!: Penalty;
  @ApiProperty({ type: [String], description: 'Item types the action is assigned to (all of them for the built-ins)' })
  itemTypeIds!: string[];
  @ApiProperty({ type: [ActionParameterDto], description: 'Values a moderator may fill in; merged into `custom`' })
  parameters!: ActionParameterDto[];
}

export class ListActionsResponseDto {
  @ApiProperty({ type: [ActionDto], description: 'The built-in actions first, then the custom ones by id' })
  actions!: ActionDto[];
}
