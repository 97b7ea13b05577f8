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
    operationId: 'listItemEvaluations',
    summary: 'Why an item was (not) actioned: every evaluation of the item, newest first',
    description: 'Our extension. Each rule with its outcome and each condition with its outcome and signal value.',
  })
  @ApiOkResponse({
    type: ListEvaluationsResponseDto,
    description: "The item's evaluations, newest first; empty when it was never evaluated",
    example: {
      evaluations: [
        {
          version: 0,
          environment: 'LIVE',
          evaluatedAt: '2026-03-04T10:12:40.212Z',
          rules: [
            {
              id: 'remove-scams',
              name: 'Remove scams',
              status: 'LIVE',
              outcome: 'passed',
              capped: false,
              conditions: [
                { path: 'conditions[0]', outcome: 'passed' },
                { path: 'conditions[1]', outcome: 'passed', value: 0 },
                { path: 'conditions[2]', outcome: 'passed', value: true },
              ],
            },
          ],
          actions: [
            {
              id: 'remove',
              kind: 'CUSTOMER_DEFINED_ACTION',
              policies: [{ id: 'scam', name: 'Scam', penalty: 'HIGH' }],
              rules: [{ id: 'remove-scams', name: 'Remove scams' }],
            },
          ],
        },
      ],
    },
  })
  @ApiCustomerRoute()
  async list(@CurrentPrincipal() principal: Principal, @Param('typeId') typeId: string, @Param('id') id: string): Promise<ListEvaluationsResponseDto> {
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
