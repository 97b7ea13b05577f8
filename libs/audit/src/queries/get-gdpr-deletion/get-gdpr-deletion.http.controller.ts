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
    summary: 'A GDPR deletion: its state and what it erased',
    description: "The organization's deletion under this id (POST /api/v1/gdpr/delete); 404 for an unknown id or another organization's.",
  })
  @ApiParam({ name: 'requestId', description: 'The id POST /api/v1/gdpr/delete answered' })
  @ApiOkResponse({ type: GdprDeletionResponseDto, description: 'The deletion' })
  @ApiCustomerRoute(404)
  get(@CurrentPrincipal() principal: Principal, @Param('requestId') requestId: string): Promise<GdprDeletionResponseDto> {
    return this.queries.execute(new GetGdprDeletionQuery(principal.orgId, requestId));
  }
}
