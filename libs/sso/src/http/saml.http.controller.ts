import { Body, Controller, Get, HttpCode, Inject, Logger, Param, Post, Query, Req, Res } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiBody, ApiConsumes, ApiOperation, ApiParam, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, invalidField, ORG_ID } from '#warden/kernel';
import { Public, WARDEN_CONFIG, type WardenConfig } from '#warden/platform';
import { setSessionCookie } from '#warden/identity/http';
import { ApiErrors, PublicBodyLimit } from '#warden/platform/http';
import { CompleteSamlLoginCommand } from '../commands/complete-saml-login/complete-saml-login.command.js';
import { StartSamlLoginCommand } from '../commands/start-saml-login/start-saml-login.command.js';
import { GetSamlMetadataQuery } from '../queries/get-saml-metadata/get-saml-metadata.query.js';
import { GetSamlSignInTargetQuery } from '../queries/get-saml-sign-in-target/get-saml-sign-in-target.query.js';
import { OversizedSamlPost } from '../saml/saml-response-limits.js';
import { refusalPage, wantsHtml } from './refusal-page.js';
import { isBrowserNavigation, postedFromOwnPage, sendConfirmation } from './sign-in-confirmation.js';
import { clearSamlRequestCookie, samlRequestCookieOf, setSamlRequestCookie, withoutTls } from './saml-request-cookie.js';

/** Anything but an organization id as they are made names no organization. */
function checkedOrgId(orgId: string): string {
  if (!ORG_ID.test(orgId)) throw invalidField('/orgId', 'An organization id is 1-63 lower-case letters, digits, "-" or "_"');
  return orgId;
}

/**
 * Per-organization SAML sign-in (docs/sso.md): outside both API prefixes, public (the IdP and a
 * signed-out browser reach them; no API key, no session). Refusals get the error body (docs/api.md, "Errors"), or a
 * small HTML page when a browser asks for HTML (the ACS is reached by a browser form post).
 */
@ApiTags('sso')
@Public()
@Controller('saml')
export class SamlHttpController {
  private readonly logger = new Logger('sso');
  private warnedWithoutTls = false;

  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
    @Inject(WARDEN_CONFIG) private readonly config: WardenConfig,
  ) {}

  @Get('login/:orgId')
  @ApiOperation({
    operationId: 'startSamlSignIn',
    summary: "Start SAML sign-in: a browser gets the confirmation page; any other client is redirected to the organization's IdP",
    description:
      "A browser (a request with `Sec-Fetch-Site`: a link, the console's SSO button, an IdP's tile, a bookmark) gets a confirmation page (200, HTML) naming the organization and its IdP's host, whose button posts to this URL (`startSamlSignInConfirmed`); nothing is started. A client without Fetch Metadata is redirected at once, as that POST is. `reauth=1`: the AuthnRequest asks the IdP to authenticate the user again (`ForceAuthn`), for a sign-in a recent-sign-in refusal asked for. 403 when SAML is not enabled for the organization, 404 for an unknown one.",
  })
  @ApiParam({ name: 'orgId', description: 'The organization id' })
  @ApiQuery({ name: 'reauth', required: false, enum: ['1'], description: '`1`: ask the IdP to authenticate the user again (`ForceAuthn`)' })
  @ApiResponse({ status: 200, description: 'A browser: the confirmation page', content: { 'text/html': { schema: { type: 'string' } } } })
  @ApiResponse({ status: 302, description: "Not a browser: redirect to the IdP's `sso_url` with `SAMLRequest`; `Set-Cookie: warden_saml_request`" })
  @ApiErrors(400, 403, 404, 429, 500, 503)
  async login(@Param('orgId') orgId: string, @Query('reauth') reauth: unknown, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.answer(request, reply, async () => {
      const id = checkedOrgId(orgId);
      if (isBrowserNavigation(request)) {
        await this.confirm(id, reauth === '1', reply);
        return;
      }
      await this.redirectToIdp(id, reauth === '1', reply);
    });
  }

  @Post('login/:orgId')
  // A field or two, read by the form parser under a limit of its own; anything else under the public one.
  @PublicBodyLimit()
  @ApiOperation({
    operationId: 'startSamlSignInConfirmed',
    summary: "Start SAML sign-in from the confirmation page: redirects to the organization's IdP with an AuthnRequest (HTTP-Redirect binding)",
    description:
      "The confirmation page's form. Only from this service's own pages (`Sec-Fetch-Site: same-origin`, or without it a same-origin `Origin`): another site's form gets the confirmation page again. The request id is accepted back as `InResponseTo` for 15 minutes, and only from this browser: the answer sets the `warden_saml_request` cookie (a digest of the request id; HttpOnly, `SameSite=None; Secure`, or `SameSite=Lax` on a deployment without TLS; `Path=/saml/acs/{orgId}`; 15 minutes), which the ACS requires. 403 when SAML is not enabled for the organization.",
  })
  @ApiParam({ name: 'orgId', description: 'The organization id' })
  @ApiConsumes('application/x-www-form-urlencoded')
  @ApiBody({
    required: false,
    schema: {
      type: 'object',
      properties: { reauth: { type: 'string', enum: ['1'], description: '`1`: ask the IdP to authenticate the user again (`ForceAuthn`)' } },
    },
  })
  @ApiResponse({ status: 303, description: "Redirect to the IdP's `sso_url` with `SAMLRequest`; `Set-Cookie: warden_saml_request`" })
  @ApiResponse({
    status: 200,
    description: 'Posted from another site: the confirmation page again; nothing is started',
    content: { 'text/html': { schema: { type: 'string' } } },
  })
  @ApiErrors(400, 403, 404, 413, 415, 429, 500, 503)
  async confirmedLogin(@Param('orgId') orgId: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.answer(request, reply, async () => {
      const id = checkedOrgId(orgId);
      // The form as the parser read it, not through the validation pipe, which takes a missing
      // body for a JSON object left out: a POST without a body is the form without `reauth`.
      const reauth = (request.body as { reauth?: unknown } | undefined)?.reauth === '1';
      if (!postedFromOwnPage(request, this.config.publicUrl)) {
        await this.confirm(id, reauth, reply);
        return;
      }
      await this.redirectToIdp(id, reauth, reply, 303);
    });
  }

  /** The confirmation page (sign-in-confirmation.ts) for the organization; starts nothing. */
  private async confirm(orgId: string, reauth: boolean, reply: FastifyReply): Promise<void> {
    await sendConfirmation(reply, await this.queries.execute(new GetSamlSignInTargetQuery(orgId)), reauth);
  }

  /** A fresh AuthnRequest for the organization, bound to this browser by its cookie. */
  private async redirectToIdp(orgId: string, reauth: boolean, reply: FastifyReply, status: 302 | 303 = 302): Promise<void> {
    const { location, requestBinding } = await this.commands.execute(new StartSamlLoginCommand(orgId, reauth));
    this.warnOnceWithoutTls();
    setSamlRequestCookie(reply, requestBinding, orgId, this.config);
    await reply.redirect(location, status);
  }

  @Post('acs/:orgId')
  // Only the IdP's form is read under a limit of its own (WARDEN_SAML_BODY_LIMIT_BYTES, see the
  // form parser); anything else a stranger posts here, such as JSON, under the public one.
  @PublicBodyLimit()
  @HttpCode(302)
  @ApiOperation({
    operationId: 'completeSamlSignIn',
    summary: 'Assertion consumer service: the IdP posts its signed response here; a valid one opens a console session',
    description:
      "Verifies the signature against the organization's `cert` (SHA-1 refused unless `WARDEN_SAML_ALLOW_SHA1`), a Success status, the audience (this organization's entity id), the `Destination` and `Recipient` when given (this organization's ACS URL), the validity window and that the response answers a sign-in started here, by this browser (the `warden_saml_request` cookie set by the login route; cleared by this answer, whatever it is); an assertion is accepted once. Then sets the session cookie and redirects to `/console/`. Every refusal is recorded as an `SsoLoginFailed` event, except an organization without SAML's (403). After 10 recorded refusals in 15 minutes for the organization from one client network (an IPv6 /64 as one), 429 with `Retry-After`: the response is not read and nothing is recorded. A form over `WARDEN_SAML_BODY_LIMIT_BYTES` (256 KiB), or a response with more than `WARDEN_SAML_MAX_ELEMENTS` (1,000) XML elements, is refused with 413 before its XML is parsed.",
  })
  @ApiParam({ name: 'orgId', description: 'The organization id' })
  @ApiConsumes('application/x-www-form-urlencoded')
  @ApiBody({
    schema: {
      type: 'object',
      required: ['SAMLResponse'],
      properties: { SAMLResponse: { type: 'string', description: 'The base64 SAML Response' }, RelayState: { type: 'string' } },
    },
  })
  @ApiResponse({ status: 302, description: 'Signed in: `Set-Cookie` with the session, redirect to `/console/`' })
  @ApiErrors(400, 401, 403, 404, 413, 415, 429, 500, 503)
  async acs(@Param('orgId') orgId: string, @Body() body: unknown, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.answer(request, reply, async () => {
      const id = checkedOrgId(orgId);
      const requestBinding = samlRequestCookieOf(request);
      clearSamlRequestCookie(reply, id, this.config);
      const samlResponse = body instanceof OversizedSamlPost ? body : (body as { SAMLResponse?: unknown } | undefined)?.SAMLResponse;
      if (!(samlResponse instanceof OversizedSamlPost) && (typeof samlResponse !== 'string' || samlResponse === '')) {
        throw invalidField('/SAMLResponse', 'The form must carry SAMLResponse (the IdP posts it with Content-Type: application/x-www-form-urlencoded)');
      }
      const session = await this.commands.execute(
        new CompleteSamlLoginCommand(id, samlResponse, requestBinding, request.ip, { orgId: id, correlationId: request.id, actor: 'sso:saml' }),
      );
      setSessionCookie(reply, session, this.config);
      await reply.redirect('/console/', 302);
    });
  }

  @Get('metadata/:orgId')
  @ApiOperation({ operationId: 'getSamlMetadata', summary: "This service's SAML SP metadata for the organization: entity id, ACS URL, NameID format" })
  @ApiParam({ name: 'orgId', description: 'The organization id' })
  @ApiResponse({ status: 200, description: 'SP metadata (XML)', content: { 'application/samlmetadata+xml': { schema: { type: 'string' } } } })
  @ApiErrors(400, 404, 429, 500, 503)
  async metadata(@Param('orgId') orgId: string, @Res() reply: FastifyReply): Promise<void> {
    const xml = await this.queries.execute(new GetSamlMetadataQuery(checkedOrgId(orgId)));
    await reply.type('application/samlmetadata+xml; charset=utf-8').send(xml);
  }

  /**
   * A deployment without TLS cannot set the cookie a cross-site IdP post carries (see
   * samlRequestCookieOptions): said once per process, at the first sign-in started, so a
   * deployment that does not use SAML is not told.
   */
  private warnOnceWithoutTls(): void {
    if (this.warnedWithoutTls || !withoutTls(this.config)) return;
    this.warnedWithoutTls = true;
    this.logger.warn(
      'WARDEN_PUBLIC_URL is http://: the SAML sign-in cookie cannot be SameSite=None without TLS, so only an IdP on the same site (such as localhost) can complete a sign-in; others are refused as unbound-request. Use https (docs/sso.md).',
    );
  }

  /** Runs a route; a refusal becomes an HTML page for a browser, else the error filter's JSON body. */
  private async answer(request: FastifyRequest, reply: FastifyReply, run: () => Promise<void>): Promise<void> {
    try {
      await run();
    } catch (error) {
      if (!(error instanceof DomainError) || !wantsHtml(request)) throw error;
      for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
      await reply.status(error.status).type('text/html; charset=utf-8').send(refusalPage(error, request.id));
    }
  }
}
