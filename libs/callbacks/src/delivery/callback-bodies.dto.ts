import { applyDecorators } from '@nestjs/common';
import { ApiCallbacks, ApiExtraModels, ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/**
 * The bodies Warden POSTs to the platform (docs/callbacks.md, "The bodies"), as OpenAPI callbacks
 * of the operations that lead to them, so that a receiver can be generated from the document as a
 * client is. These classes only describe the payloads: domain/action-callback-body.ts and
 * domain/appeal-callback-body.ts build them (test/openapi.spec.ts holds each built body to its schema).
 */
class CallbackItemDto {
  @ApiProperty({ example: 'post-1' }) id!: string;
  @ApiProperty({ example: 'post' }) typeId!: string;
  @ApiProperty({ example: 'Post', description: "The item type's display name" }) typeName!: string;
}

class CallbackItemIdentifierDto {
  @ApiProperty({ example: 'u-42' }) id!: string;
  @ApiProperty({ example: 'user' }) typeId!: string;
}

class CallbackActionDto {
  @ApiProperty({ example: 'remove' }) id!: string;
}

class CallbackPolicyDto {
  @ApiProperty({ example: 'spam' }) id!: string;
  @ApiProperty({ example: 'Spam' }) name!: string;
  @ApiProperty({ enum: ['NONE', 'LOW', 'MEDIUM', 'HIGH', 'SEVERE'] }) penalty!: string;
}

class CallbackRuleDto {
  @ApiProperty({ example: 'buy-now' }) id!: string;
  @ApiProperty({ example: 'Buy now' }) name!: string;
}

const CUSTOM = {
  type: 'object',
  additionalProperties: true,
  description:
    "The action's configured `body`, merged with the values a moderator filled in for its `parameters`; for a decision on a reported item also " +
    '`reason` (the decision reason) and `reportHistory` (`[{reason, reporter}]`, the newest 100 reports, reasons cut to 1,000 characters)',
} as const;

export class ActionCallbackBodyDto {
  @ApiProperty({ type: CallbackItemDto, description: 'The item that should receive the action' }) item!: CallbackItemDto;
  @ApiProperty({ type: CallbackActionDto }) action!: CallbackActionDto;
  @ApiProperty({
    type: [CallbackPolicyDto],
    description: 'The policies of every rule that chose the action, or those the moderator or the platform named; [] for a strike threshold',
  })
  policies!: CallbackPolicyDto[];
  @ApiProperty({
    type: [CallbackRuleDto],
    description: 'The rules that chose the action; [] when no rule did (manual review, an executed action, bulk actioning, a threshold)',
  })
  rules!: CallbackRuleDto[];
  @ApiProperty(CUSTOM) custom!: Record<string, unknown>;
  @ApiPropertyOptional({
    description:
      "The deciding moderator's email, or for a bulk action the manager's; never for a rule, a threshold or an action the platform executed; left out once that console account was erased",
  })
  actorEmail?: string;
  @ApiPropertyOptional({ description: "The moderator's note, when there is one" }) actorNote?: string;
  @ApiPropertyOptional({
    type: CallbackItemIdentifierDto,
    description: "The user concerned: the item itself for a USER item, the item's creator role for others; left out when it cannot be resolved",
  })
  creator?: CallbackItemIdentifierDto;
  @ApiPropertyOptional({ description: "The moderator's reason (also in custom.reason), or a bulk action's reason; left out when none" })
  decisionReason?: string;
  @ApiPropertyOptional({ type: 'integer', minimum: 0, description: "The user's strikes right after this action; left out when no user is known" })
  userStrikeCount?: number;
}

export class AppealDecisionCallbackBodyDto {
  @ApiProperty({ example: 'appeal-7', description: 'The appealId the platform sent with the appeal' }) appealId!: string;
  @ApiProperty({ type: CallbackItemDto, description: 'The item that was actioned' }) item!: CallbackItemDto;
  @ApiProperty({ type: CallbackItemIdentifierDto, description: 'The appealing user' }) appealedBy!: CallbackItemIdentifierDto;
  @ApiProperty({ enum: ['ACCEPT', 'REJECT'], description: 'ACCEPT: the appeal is granted, the original action was wrong; REJECT: it stands' })
  appealDecision!: 'ACCEPT' | 'REJECT';
  @ApiProperty({ type: 'object', additionalProperties: true, description: 'The `appeals.body` of the configuration' }) custom!: Record<string, unknown>;
}

/** How every callback is sent and answered (docs/callbacks.md). */
const DELIVERY =
  'Signed: `Service-Signature: t=<unix seconds>,kid=<key id>,v1=<base64 Ed25519 signature>` over `<t>.<Service-Delivery-Id>.<raw body>`, with the keys ' +
  'of GET /api/v1/signing_keys; `Service-Delivery-Id` is the same on every retry and redelivery (de-duplicate on it); the headers configured for it are sent ' +
  'too. Answer any 2xx; anything else (a redirect too), a timeout of 10 s or a network error is retried up to five times with backoff (honouring ' +
  '`Retry-After`), then dead-lettered. See docs/callbacks.md';

/**
 * The action callback (docs/callbacks.md, "The bodies"), on an operation whose items or decisions lead to one: a
 * rule publishing a CUSTOMER_DEFINED_ACTION, a moderator's decision, an executed action, a bulk
 * action or a strike threshold.
 */
export function ApiActionCallback(): MethodDecorator {
  return applyDecorators(
    ApiExtraModels(ActionCallbackBodyDto),
    ApiCallbacks({
      name: 'actionCallback',
      // A constant key: the URL is the action's callback.url in the configuration, which no request carries.
      callbackUrl: 'https://platform.example/hooks/remove',
      method: 'post',
      requestBody: { type: ActionCallbackBodyDto },
      expectedResponse: {
        status: 200,
        description:
          "The action's `callback.url` (configuration file), implemented by the platform: Warden POSTs an ActionCallbackBodyDto " +
          '(#/components/schemas/ActionCallbackBodyDto) for each CUSTOMER_DEFINED_ACTION a rule publishes, a moderator decides, the platform executes ' +
          `(POST /api/v1/actions), a bulk action executes or a user's strikes cross a threshold. ${DELIVERY}`,
      },
    }),
  );
}

/** The appeal decision callback (docs/callbacks.md, "The bodies"), on the appeal operation. */
export function ApiAppealDecisionCallback(): MethodDecorator {
  return applyDecorators(
    ApiExtraModels(AppealDecisionCallbackBodyDto),
    ApiCallbacks({
      name: 'appealDecisionCallback',
      // A constant key: the URL is the organization's appeals.callback.url.
      callbackUrl: 'https://platform.example/hooks/appeals',
      method: 'post',
      requestBody: { type: AppealDecisionCallbackBodyDto },
      expectedResponse: {
        status: 200,
        description:
          "The organization's `appeals.callback.url` (configuration file), implemented by the platform: Warden POSTs an AppealDecisionCallbackBodyDto " +
          `(#/components/schemas/AppealDecisionCallbackBodyDto) when a moderator decides the appeal. ${DELIVERY}`,
      },
    }),
  );
}
