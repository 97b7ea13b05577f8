import { Controller, Get, Header, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, type Principal } from '#warden/platform';
import { ApiCustomerRoute } from '#warden/platform/http';
import { GetSigningKeysQuery } from './get-signing-keys.query.js';
import { GetSigningKeysRequestDto } from './get-signing-keys.request.dto.js';
import { SigningKeysResponseDto } from './get-signing-keys.response.dto.js';

@ApiTags('callbacks')
@Controller('api/v1/signing_keys')
export class GetSigningKeysHttpController {
  constructor(private readonly queries: QueryBus) {}

  @Get()
  @Header('Cache-Control', 'private, max-age=300')
  @ApiOperation({
    operationId: 'getSigningKeys',
    summary: "The public keys that verify this organization's callbacks (JWKS)",
    description:
      'Every callback carries `Service-Signature: t=<unix seconds>,kid=<key id>,v1=<base64 Ed25519 signature>` over the ' +
      'bytes `<t>.<Service-Delivery-Id>.<raw body>`. Pick the key whose `kid` matches; refetch this set when a `kid` is ' +
      "unknown (after a rotation). Keys are per organization, so the request carries the organization's API key. " +
      'The first key is created on first need. `include=retired` adds the retired keys, for an auditor verifying older ' +
      'audit checkpoints (docs/audit.md). See docs/callbacks.md.',
  })
  @ApiOkResponse({
    type: SigningKeysResponseDto,
    description: 'The keys that verify callbacks (a JWK set)',
    example: {
      keys: [
        { kty: 'OKP', crv: 'Ed25519', kid: 'C8SUJ4HLwtr8Sb4UAasw5vvHKbTD-IpLZ46EavV9l2k', x: 'DBbQmK11DLOhVsLlZmFRtTrWb-CBVl6Bpnw-ahLtcok', status: 'active' },
        { kty: 'OKP', crv: 'Ed25519', kid: 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo', status: 'rotated' },
      ],
    },
    headers: { 'Cache-Control': { description: 'The set may be cached this long', schema: { type: 'string', example: 'private, max-age=300' } } },
  })
  @ApiCustomerRoute(400)
  async get(@CurrentPrincipal() principal: Principal, @Query() query: GetSigningKeysRequestDto): Promise<SigningKeysResponseDto> {
    return this.queries.execute(new GetSigningKeysQuery(principal.orgId, query.include === 'retired'));
  }
}
