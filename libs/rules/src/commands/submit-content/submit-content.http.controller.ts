import { Body, Controller, Inject, Post, Req, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiAcceptedResponse, ApiExtraModels, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { BUILTIN_ACTION_IDS } from '#warden/catalog';
import type { EventStore } from '#warden/eventstore';
import { itemStream, SubmitItemsCommand } from '#warden/ingestion';
import { DomainError } from '#warden/kernel';
import { ApiCustomerRoute, CurrentPrincipal, EVENT_STORE, type Principal } from '#warden/platform';
import { CatalogSnapshots } from '../../evaluation/catalog-snapshots.js';
import { ItemEvaluator } from '../../evaluation/item-evaluator.js';
import {
  SubmitContentAsyncResponseDto,
  SubmitContentRequestDto,
  SubmitContentSyncResponseDto,
} from './submit-content.request.dto.js';

const BUILTIN_NAMES: Record<string, string> = {
  [BUILTIN_ACTION_IDS.mrt]: 'Enqueue to manual review',
  [BUILTIN_ACTION_IDS.childSafety]: 'Enqueue to child safety',
};

/** The legacy single-item endpoint (spec 4.8): one item, no image hashing, optionally synchronous. */
@ApiTags('items')
@ApiExtraModels(SubmitContentSyncResponseDto, SubmitContentAsyncResponseDto)
@Controller('api/v1/content')
export class SubmitContentHttpController {
  constructor(
    private readonly commands: CommandBus,
    private readonly evaluator: ItemEvaluator,
    private readonly snapshots: CatalogSnapshots,
    @Inject(EVENT_STORE) private readonly events: EventStore,
  ) {}

  @Post()
  @ApiOperation({
    summary: 'Submit one item (legacy, interface spec 4.8)',
    description:
      'Without `sync` (or false) the item is recorded and evaluated asynchronously: 202 as for /api/v1/items/async/. ' +
      'With `sync: true` it is evaluated before answering 200 with the result; the actions are published as usual. ' +
      'No image hashing on this endpoint.',
  })
  @ApiOkResponse({ type: SubmitContentSyncResponseDto, description: 'sync: true' })
  @ApiAcceptedResponse({ type: SubmitContentAsyncResponseDto, description: 'sync absent or false' })
  @ApiCustomerRoute(400, 413, 415)
  async submit(
    @Body() body: SubmitContentRequestDto,
    @CurrentPrincipal() principal: Principal,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<SubmitContentSyncResponseDto | SubmitContentAsyncResponseDto> {
    const context = { orgId: principal.orgId, correlationId: request.id, actor: `api-key:${principal.keyId}` };
    const snapshot = await this.snapshots.get(principal.orgId);
    const userType = [...snapshot.itemTypes.values()].find((t) => t.kind === 'USER');
    const fallbackCreator = body.userId && userType ? { id: body.userId, typeId: userType.id } : null;
    let accepted;
    try {
      accepted = await this.commands.execute(
        new SubmitItemsCommand([{ id: body.contentId, typeId: body.contentType, data: body.content }], context, {
          source: 'content',
          pointer: '/items',
          fallbackCreator,
        }),
      );
    } catch (error) {
      throw error instanceof DomainError ? legacyPointers(error) : error;
    }
    if (!body.sync) {
      reply.status(202);
      return { accepted: 1, requestId: request.id };
    }
    // Evaluate the recorded submission itself, exactly as the worker would.
    const [submitted] = await this.events.readStream(itemStream(principal.orgId, body.contentType, body.contentId), {
      fromRevision: accepted[0]!.version,
      maxCount: 1,
    });
    const evaluated = submitted ? await this.evaluator.evaluateSubmission(submitted) : undefined;
    reply.status(200);
    return {
      contentId: body.contentId,
      rules: (evaluated?.rules ?? []).map((r) => ({
        id: r.id,
        name: r.name,
        status: r.status,
        result: r.capped ? 'capped' : r.outcome,
      })),
      actionsTriggered: (evaluated?.actions ?? []).map((a) => ({
        id: a.id,
        name: snapshot.actions.get(a.id)?.name ?? BUILTIN_NAMES[a.id] ?? a.id,
      })),
    };
  }
}

/** Problems found by the items validator, pointed at the legacy request's own fields. */
function legacyPointers(error: DomainError): DomainError {
  const map = (pointer: string | undefined) =>
    pointer
      ?.replace(/^\/items\/0\/data(?=\/|$)/, '/content')
      .replace(/^\/items\/0\/id$/, '/contentId')
      .replace(/^\/items\/0\/typeId$/, '/contentType');
  return new DomainError(error.kind, error.details.map((d) => ({ ...d, pointer: map(d.pointer) })), error.headers);
}

