import { ApiProperty } from '@nestjs/swagger';
import { ApiNullableObject } from '../api-nullable-object.decorator.js';

class CsItemDto {
  @ApiProperty() id!: string;
  @ApiProperty() typeId!: string;
  @ApiProperty() typeName!: string;
  @ApiProperty({ description: 'The item version the report is about' }) version!: number;
}

class CsUserDto {
  @ApiProperty() id!: string;
  @ApiProperty() typeId!: string;
}

class CsReporterDto extends CsUserDto {
  @ApiProperty({ enum: ['user'] }) kind!: string;
}

class CsIncidentDto {
  @ApiProperty({ type: [String], description: "What the reporters wrote (null entries left out; empty after an erasure's rebuild)" })
  reportReasons!: string[];

  @ApiProperty({ type: String, nullable: true, description: "The moderator's reason" })
  moderatorReason!: string | null;

  @ApiProperty({ type: String, nullable: true, description: "The moderator's note" })
  note!: string | null;
}

class CsModeratorDto {
  @ApiProperty() userId!: string;
  @ApiProperty({ type: String, nullable: true, description: "Null once the moderator's console account was erased (docs/gdpr.md)" }) email!: string | null;
}

/** The schemas only nullable properties of a report name (ApiNullableObject). */
export const CHILD_SAFETY_REPORT_NULLABLE_MODELS = [CsUserDto, CsIncidentDto, CsModeratorDto];

export class ChildSafetyReportDto {
  @ApiProperty({ description: 'Derived from the decision that recorded it' }) reportId!: string;
  @ApiProperty() jobId!: string;
  @ApiProperty({ type: CsItemDto }) item!: CsItemDto;
  @ApiNullableObject(CsUserDto, { description: 'The user the content is attributed to, when known' }) creator!: CsUserDto | null;
  @ApiProperty({ type: [CsReporterDto], description: 'Every user who reported the item into the job' }) reporters!: CsReporterDto[];
  @ApiNullableObject(CsIncidentDto, { description: 'Null when the personal data was erased' }) incident!: CsIncidentDto | null;
  @ApiProperty({
    type: [String],
    nullable: true,
    description:
      "The item's media URLs (IMAGE, VIDEO, AUDIO fields and data.images), without user info, query string or fragment (a pre-signed URL's signature is a credential): `https://bucket.example/cat.jpg?…`. Null when the personal data was erased",
  })
  mediaUrls!: string[] | null;
  @ApiNullableObject(CsModeratorDto, { description: 'The moderator who recorded the report; null when the personal data was erased' })
  reportedBy!: CsModeratorDto | null;
  @ApiProperty({ format: 'date-time' }) recordedAt!: string;
}

export class ChildSafetyReportPageDto {
  @ApiProperty({ type: [ChildSafetyReportDto] }) reports!: ChildSafetyReportDto[];
  @ApiProperty() total!: number;
  @ApiProperty() limit!: number;
  @ApiProperty() offset!: number;
  @ApiProperty({ type: Number, nullable: true, description: 'The offset of the next page; null on the last' }) nextOffset!: number | null;
}
