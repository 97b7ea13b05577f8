import { Controller, Get, Param } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, type Principal } from '#warden/platform';
import { ApiCustomerRoute } from '#warden/platform/http';
import { GetGdprDeletionQuery } from './get-gdpr-deletion.query.js';
import { GdprDeletionResponseDto } from './gdpr-deletion.response.dto.js';

@ApiTags('gdpr')
@Controller('api/v1/gdpr/delete')
export class GetGdprDeletionHttpController {
  constructor(private readonly queries: QueryBus) {}

  @Get(':requestId')
  @ApiOperation({
    operationId: 'getGdprDeletion',
    summary: 'A GDPR deletion: its state and what it erased',
    description: "The organization's deletion under this id (POST /api/v1/gdpr/delete); 404 for an unknown id or another organization's.",
  })
  @ApiParam({ name: 'requestId', description: 'The id POST /api/v1/gdpr/delete answered' })
  @ApiOkResponse({
    type: GdprDeletionResponseDto,
    description: 'The deletion',
    example: {
      requestId: 'a12df902-1681-894b-8af1-5c87c8e95e8e',
      state: 'COMPLETED',
      requestedAt: '2026-03-04T10:15:02.118Z',
      completedAt: '2026-03-04T10:15:02.907Z',
      erased: { dataKeys: 1, items: 12, reports: 3, appeals: 1, reviewJobsClosed: 2, consoleAccounts: 0 },
    },
  })
  @ApiCustomerRoute(404)
  get(@CurrentPrincipal() principal: Principal, @Param('requestId') requestId: string): Promise<GdprDeletionResponseDto> {
    return this.queries.execute(new GetGdprDeletionQuery(principal.orgId, requestId));
  }
}
