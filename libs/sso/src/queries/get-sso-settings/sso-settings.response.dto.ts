import { ApiProperty } from '@nestjs/swagger';
import { ROLES } from '#warden/identity/contracts';
import type { CertificateSummary } from './get-sso-settings.query.js';

const ROLE_LIST = { type: 'array' as const, items: { type: 'string' as const, enum: [...ROLES] } };

export class JitSettingsDto {
  @ApiProperty({ description: 'An unknown email in a valid assertion becomes a user of the organization' })
  enabled!: boolean;
  @ApiProperty({ enum: ROLES, isArray: true, description: 'The roles of a just-in-time user when no group maps' })
  defaultRoles!: string[];
}

export class ServiceProviderDto {
  @ApiProperty({ description: 'SP entity id / audience to enter at the IdP', example: 'https://warden.example/saml/metadata/acme' })
  entityId!: string;
  @ApiProperty({ description: 'ACS URL (HTTP-POST) to enter at the IdP', example: 'https://warden.example/saml/acs/acme' })
  acsUrl!: string;
  @ApiProperty({ description: 'SP metadata to import at the IdP', example: 'https://warden.example/saml/metadata/acme' })
  metadataUrl!: string;
  @ApiProperty({ description: 'Where users start a SAML sign-in', example: 'https://warden.example/saml/login/acme' })
  loginUrl!: string;
}

/** The organization's `sso:` settings; the certificate only summarized, never the PEM. */
export class SsoSettingsResponseDto {
  @ApiProperty({
    enum: ['file', 'console'],
    description:
      "Where the settings are changed. `file`: the organization's configuration file set them and PUT answers 409 naming it; `console`: set in the console (or never set), or the file hands them to the console (`management: { sso: console }`)",
  })
  managedBy!: 'file' | 'console';
  @ApiProperty({ type: String, nullable: true, example: 'acme.yaml', description: 'The configuration file that set them last, where recorded; null otherwise' })
  file!: string | null;
  @ApiProperty({ description: 'Users can sign in through the IdP' })
  saml_enabled!: boolean;
  @ApiProperty({ description: "The IdP's SSO URL (HTTP-Redirect binding)", nullable: true, type: String, example: 'https://idp.example/sso/saml' })
  sso_url!: string | null;
  @ApiProperty({ description: 'False: users sign in through SSO only' })
  passwordLogin!: boolean;
  @ApiProperty({ type: JitSettingsDto })
  jit!: JitSettingsDto;
  @ApiProperty({
    description: 'The assertion attribute that holds the groups; null: roles are not taken from the IdP',
    nullable: true,
    type: String,
    example: 'groups',
  })
  roleAttribute!: string | null;
  @ApiProperty({ description: 'IdP group → the roles it grants', type: 'object', additionalProperties: ROLE_LIST, example: { moderators: ['MODERATOR'] } })
  roleMap!: Record<string, string[]>;
  @ApiProperty({ description: 'False: an unsigned assertion inside a signed response is accepted' })
  wantAssertionsSigned!: boolean;
  // Inline rather than a $ref: OpenAPI 3.0 cannot make a referenced schema nullable.
  @ApiProperty({
    type: 'object',
    nullable: true,
    description: "The IdP's signing certificate, summarized (never the PEM); null when none is set (or a file, with SAML off, set one that does not parse)",
    properties: {
      fingerprintSha256: { type: 'string', description: 'SHA-256 fingerprint (colon-separated upper-case hex)', example: 'AB:12:…:9F' },
      subject: { type: 'string', description: "The certificate's subject", example: 'CN=idp.example' },
      notAfter: { type: 'string', description: 'When the certificate expires (ISO 8601)', example: '2027-03-01T00:00:00.000Z' },
    },
  })
  certificate!: CertificateSummary | null;
  @ApiProperty({ type: ServiceProviderDto, description: 'The values an IdP administrator enters for this organization' })
  serviceProvider!: ServiceProviderDto;
}
