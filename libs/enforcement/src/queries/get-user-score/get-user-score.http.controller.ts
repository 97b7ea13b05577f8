import { Controller, Get, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { GetLiveEntitiesQuery } from '#warden/catalog';
import { invalidField } from '#warden/kernel';
import { CurrentPrincipal, type Principal } from '#warden/platform';
import { ApiCustomerRoute } from '#warden/platform/http';
import { GetUserScoreQuery } from './get-user-score.query.js';
import { GetUserScoreRequestDto } from './get-user-score.request.dto.js';

@ApiTags('enforcement')
@Controller('api/v1/user_scores')
export class GetUserScoreHttpController {
  constructor(private readonly queries: QueryBus) {}

  @Get()
  @ApiOperation({
    operationId: 'getUserScore',
    summary: "A user's moderation score",
    description:
      'The bare JSON number 1 (worst) to 5 (best), from the penalty points of the actions taken on the ' +
      "user's items per item they submitted, with the organization's `scores:` weights and thresholds. " +
      'A user Warden has never seen scores 5. 400 when `id` or `typeId` is missing, or `typeId` is not an ' +
      'item type of kind USER of the organization.',
  })
  @ApiOkResponse({ description: 'The score', schema: { type: 'integer', minimum: 1, maximum: 5, example: 4 } })
  @ApiCustomerRoute(400)
  async get(@CurrentPrincipal() principal: Principal, @Query() query: GetUserScoreRequestDto): Promise<number> {
    const itemTypes = await this.queries.execute(new GetLiveEntitiesQuery(principal.orgId, 'itemType'));
    const itemType = itemTypes.find((t) => t.id === query.typeId);
    if (!itemType) throw invalidField('/typeId', `no item type ${query.typeId}`);
    if (itemType.kind !== 'USER') throw invalidField('/typeId', `item type ${query.typeId} is of kind ${itemType.kind}, not USER`);
    return this.queries.execute(new GetUserScoreQuery(principal.orgId, { id: query.id, typeId: query.typeId }));
  }
}
