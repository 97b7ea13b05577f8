import { ApiPropertyOptional } from '@nestjs/swagger';
import { Allow } from 'class-validator';
import { ROLES } from '#warden/identity/contracts';
import { AsReceived } from '#warden/platform/http';

const ROLE_LIST = { type: 'array' as const, items: { type: 'string' as const, enum: [...ROLES] } };

/**
 * The `sso:` section as in a configuration file (configuration-as-code.md): a field left out takes
 * the file's default, except `cert`, which is kept. The fields are only let through here; the
 * catalog checks them with the file's own validation (one set of rules, one set of messages).
 */
export class ChangeSsoSettingsRequestDto {
  @ApiPropertyOptional({ description: 'Users can sign in through the IdP; needs sso_url and a certificate. Default false' })
  @Allow()
  saml_enabled?: boolean;
  @ApiPropertyOptional({ description: "The IdP's SSO URL (HTTP-Redirect binding)", nullable: true, type: String, example: 'https://idp.example/sso/saml' })
  @Allow()
  sso_url?: string | null;
  @ApiPropertyOptional({
    description: "The IdP's signing certificate (PEM). Left out: the stored certificate is kept. null: removed (only with saml_enabled false).",
    nullable: true,
    type: String,
    example: '-----BEGIN CERTIFICATE-----\nMIIC…\n-----END CERTIFICATE-----',
  })
  @Allow()
  cert?: string | null;
  @ApiPropertyOptional({ description: 'False: users sign in through SSO only (allowed only with saml_enabled true). Default true' })
  @Allow()
  passwordLogin?: boolean;
  @ApiPropertyOptional({
    description: 'Just-in-time provisioning (default: off, no roles); when enabled, defaultRoles or roleAttribute must give roles',
    type: 'object',
    properties: { enabled: { type: 'boolean' }, defaultRoles: ROLE_LIST },
    example: { enabled: true, defaultRoles: ['MODERATOR'] },
  })
  @Allow()
  @AsReceived()
  jit?: { enabled?: boolean; defaultRoles?: string[] };
  @ApiPropertyOptional({
    description: 'The assertion attribute that holds the groups (required with roleMap)',
    nullable: true,
    type: String,
    example: 'groups',
  })
  @Allow()
  roleAttribute?: string | null;
  @ApiPropertyOptional({
    description: 'IdP group → the roles it grants',
    type: 'object',
    additionalProperties: ROLE_LIST,
    example: { moderators: ['MODERATOR'] },
  })
  @Allow()
  @AsReceived()
  roleMap?: Record<string, string[]>;
  @ApiPropertyOptional({ description: 'False: an unsigned assertion inside a signed response is accepted. Default true' })
  @Allow()
  wantAssertionsSigned?: boolean;
}
