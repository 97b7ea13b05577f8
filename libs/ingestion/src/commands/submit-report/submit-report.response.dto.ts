import { ApiProperty } from '@nestjs/swagger';

export class SubmitReportResponseDto {
  @ApiProperty({ description: 'Unique id of the report, assigned by the service', example: 'rpt_3q2mYV0bH8kP1sXa' })
  reportId!: string;
}
