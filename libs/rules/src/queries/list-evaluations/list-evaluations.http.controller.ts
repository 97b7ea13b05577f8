import { Controller, Get, Param } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, type Principal } from '#warden/platform';
import { ApiCustomerRoute } from '#warden/platform/http';
import { ListEvaluationsQuery } from './list-evaluations.query.js';
import { ListEvaluationsResponseDto } from './list-evaluations.response.dto.js';

@ApiTags('items')
@Controller('api/v1/items/:typeId/:id/evaluations')
export class ListEvaluationsHttpController {
  constructor(private readonly queries: QueryBus) {}

  @Get()
  @ApiOperation({
    summary: 'Why an item was (not) actioned: every evaluation of the item, newest first',
    description: 'Our extension. Each rule with its outcome and each condition with its outcome and signal value.',
  })
  @ApiOkResponse({ type: ListEvaluationsResponseDto })
  @ApiCustomerRoute()
  async list(
    @CurrentPrincipal() principal: Principal,
    @Param('typeId') typeId: string,
    @Param('id') id: string,
  ): Promise<ListEvaluationsResponseDto> {
    const docs = await this.queries.execute(new ListEvaluationsQuery(principal.orgId, typeId, id));
    return {
      evaluations: docs.map((d) => ({
        version: d.version,
        environment: d.environment,
        evaluatedAt: d.evaluatedAt,
        rules: d.rules,
        actions: d.actions,
      })),
    };
  }
}
