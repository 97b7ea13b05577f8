import { Controller, Get, Param, Query, Req } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiExtraModels, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { RecordInvestigationViewCommand } from '#warden/identity';
import { consoleCommandContext, type ConsolePrincipal, CurrentUser, RequirePermissions } from '#warden/platform';
import { ApiConsoleRoute } from '#warden/platform/http';
import { FindInvestigationQuery } from '../find-investigation/find-investigation.query.js';
import { FindInvestigationRequestDto } from '../find-investigation/find-investigation.request.dto.js';
import { InvestigateUserQuery } from '../investigate-user/investigate-user.query.js';
import { InvestigateItemQuery } from './investigate-item.query.js';
import { InvestigatePageRequestDto } from './investigate-item.request.dto.js';
import { INVESTIGATE_EXTRA_MODELS, InvestigateItemResponseDto, InvestigateUserResponseDto, InvestigationTargetDto } from './investigate-item.response.dto.js';

const PERSONAL =
  'Personal fields (item data, reasons people wrote) are shown as the audit histories show them (ADMIN, ANALYST; AUDITOR while ' +
  '`org.settings.auditorPersonalData` grants it) and as the job view shows them to moderator managers; null otherwise, as after an ' +
  'erasure (`personalData` tells the two apart). Every answer is recorded in the access audit (`ConsoleInvestigationViewed`: who ' +
  "looked at whom). 404 for an id this organization has no record of, another organization's included. Without VIEW_CHILD_SAFETY_DATA " +
  "the child-safety queue's jobs and their events (opening, claims, decisions, the child-safety report, a report flagged csam, a report " +
  'routed there) and what a decision there caused (strikes, callbacks, a strike threshold crossed) are left out.';

/**
 * Investigate (docs/console.md, "Investigate"): look anything up by id and see all Warden knows of
 * it. Reads only; the one write is the access-audit record of a page answered (docs/console-access.md,
 * "Signing in": the access audit), made after the read so a refused lookup records nothing.
 */
@Controller('api/console/v1/investigate')
@ApiExtraModels(...INVESTIGATE_EXTRA_MODELS)
export class InvestigateHttpController {
  constructor(
    private readonly queries: QueryBus,
    private readonly commands: CommandBus,
  ) {}

  @Get('lookup')
  @ApiOperation({
    operationId: 'consoleInvestigateLookup',
    summary: 'Find the item or user an id names',
    description:
      'An item or a user by type and id, or the item a report, a review job or a callback delivery is about: which page to open ' +
      '(`kind: user` for an item of a USER type). 400 with a pointer for a malformed id or a missing `typeId`; 404 for an id this organization has no record of, ' +
      'or, without VIEW_CHILD_SAFETY_DATA, a job of the child-safety queue, a report flagged csam or a delivery a decision there caused.',
  })
  @ApiOkResponse({ type: InvestigationTargetDto, description: 'The page to open' })
  @ApiConsoleRoute({}, 400, 404)
  @RequirePermissions('INVESTIGATE')
  lookup(@Query() query: FindInvestigationRequestDto, @CurrentUser() user: ConsolePrincipal): Promise<InvestigationTargetDto> {
    return this.queries.execute(new FindInvestigationQuery(user.orgId, query.kind, query.id, query.typeId, user.permissions));
  }

  @Get('items/:typeId/:id')
  @ApiOperation({
    operationId: 'consoleInvestigateItem',
    summary: 'All Warden knows of an item',
    description:
      'Its versions (newest 20, with `typeVersion`; `before` pages back), rule evaluations with every condition and hash matches (newest 10), ' +
      'the actions published with their callback delivery states, reports, review jobs with their decisions (moderator, reason), appeals, ' +
      "the newest report's thread, the newest 50 events with their actors, and its creator's score, strikes and recent items. " +
      PERSONAL,
  })
  @ApiOkResponse({ type: InvestigateItemResponseDto, description: 'The item, each section its newest entries' })
  @ApiConsoleRoute({}, 400, 404)
  @RequirePermissions('INVESTIGATE')
  async item(
    @Param('typeId') typeId: string,
    @Param('id') id: string,
    @Query() page: InvestigatePageRequestDto,
    @CurrentUser() user: ConsolePrincipal,
    @Req() request: FastifyRequest,
  ): Promise<InvestigateItemResponseDto> {
    const found = await this.queries.execute(new InvestigateItemQuery(user.orgId, typeId, id, user.permissions, page.before));
    await this.commands.execute(
      new RecordInvestigationViewCommand(user.orgId, user.userId, { kind: 'item', typeId, id }, consoleCommandContext(user, request.id)),
    );
    return found;
  }

  @Get('users/:typeId/:id')
  @ApiOperation({
    operationId: 'consoleInvestigateUser',
    summary: 'All Warden knows of a user',
    description:
      'Their own user item, the items they created (newest 50; `before` pages back), actions on them and their items with delivery states, ' +
      'strikes over time (count after each) and the live count, score, the reports they filed, their appeals, the newest 50 events. ' +
      PERSONAL,
  })
  @ApiOkResponse({ type: InvestigateUserResponseDto, description: 'The user, each section its newest entries' })
  @ApiConsoleRoute({}, 400, 404)
  @RequirePermissions('INVESTIGATE')
  async user(
    @Param('typeId') typeId: string,
    @Param('id') id: string,
    @Query() page: InvestigatePageRequestDto,
    @CurrentUser() user: ConsolePrincipal,
    @Req() request: FastifyRequest,
  ): Promise<InvestigateUserResponseDto> {
    const found = await this.queries.execute(new InvestigateUserQuery(user.orgId, typeId, id, user.permissions, page.before));
    await this.commands.execute(
      new RecordInvestigationViewCommand(user.orgId, user.userId, { kind: 'user', typeId, id }, consoleCommandContext(user, request.id)),
    );
    return found;
  }
}
