import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { type ConsolePrincipal, CurrentUser, RequirePermissions } from '#warden/platform';
import { ApiConsoleRoute } from '#warden/platform/http';
import { BulkActionRequestDto } from '../../commands/request-bulk-action/request-bulk-action.request.dto.js';
import { PreviewBulkActionQuery } from './preview-bulk-action.query.js';
import { BulkActionPreviewDto } from './preview-bulk-action.response.dto.js';

@Controller('api/console/v1/bulk-actions')
export class PreviewBulkActionHttpController {
  constructor(private readonly queries: QueryBus) {}

  @Post('preview')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'consolePreviewBulkAction',
    summary: 'Check and count a bulk action without recording anything',
    description:
      'The same body as the request: checked whole (a 400 lists every problem with its pointer), then counted: items stored in ' +
      'the organization and missing, and of the stored ones how many would be new actions and how many were executed already ' +
      'with this action, policies and reason; in all and per item type.',
  })
  @ApiOkResponse({ type: BulkActionPreviewDto, description: 'The counts' })
  @ApiConsoleRoute({}, 400, 413, 415)
  @RequirePermissions('BULK_ACTIONS')
  async preview(@Body() body: BulkActionRequestDto, @CurrentUser() user: ConsolePrincipal): Promise<BulkActionPreviewDto> {
    return (await this.queries.execute(new PreviewBulkActionQuery(user.orgId, body as unknown as Record<string, unknown>))) as BulkActionPreviewDto;
  }
}
