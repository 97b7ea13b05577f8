import { Body, Controller, Delete, Get, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  type ConsolePrincipal,
  ConsolePublic,
  CurrentUser,
  OptionalUser,
  RequirePermissions,
  sessionCookieName,
  WARDEN_CONFIG,
  type WardenConfig,
} from '#warden/platform';
import { ApiConsoleRoute } from '#warden/platform/http';
import { csrfTokenFor } from '../../domain/session-token.js';
import { CloseConsoleSessionCommand } from '../close-console-session/close-console-session.command.js';
import type { OpenedConsoleSession } from '../open-console-session/open-console-session.command.js';
import { ConsoleSessionResponseDto, ConsoleSessionStateDto, LoginRequestDto } from './console-session.dto.js';
import { PasswordLoginCommand } from './password-login.command.js';

/** `Secure` unless the deployment runs without TLS (a public URL starting with http://). */
function cookieOptions(config: WardenConfig) {
  return { httpOnly: true, sameSite: 'lax' as const, path: '/', secure: !config.publicUrl.startsWith('http://') };
}

/** Sets the session cookie of a session just opened (password sign-in here, SAML elsewhere). */
export function setSessionCookie(reply: FastifyReply, opened: Pick<OpenedConsoleSession, 'token' | 'expiresAt'>, config: WardenConfig): void {
  const maxAge = Math.max(0, Math.round((Date.parse(opened.expiresAt) - Date.now()) / 1000));
  reply.setCookie(sessionCookieName(config.publicUrl), opened.token, { ...cookieOptions(config), maxAge });
}

export function clearSessionCookie(reply: FastifyReply, config: WardenConfig): void {
  reply.clearCookie(sessionCookieName(config.publicUrl), cookieOptions(config));
}

@Controller('api/console/v1')
export class ConsoleSessionHttpController {
  constructor(
    private readonly commands: CommandBus,
    @Inject(WARDEN_CONFIG) private readonly config: WardenConfig,
  ) {}

  @Get('session')
  @ConsolePublic({ identifies: true })
  @ApiConsoleRoute({ public: true })
  @ApiOperation({
    operationId: 'consoleGetSession',
    summary: 'Whether this browser is signed in (the console asks on load)',
    description:
      'Always 200: `signedIn: false` without a valid session cookie (an invalid one is cleared, and counts as a failed authentication like any invented credential), otherwise what GET me answers. A page loaded after an SSO sign-in learns its CSRF token here.',
  })
  @ApiOkResponse({ type: ConsoleSessionStateDto, description: 'Whether the request is signed in, and as whom' })
  current(
    @OptionalUser() principal: ConsolePrincipal | null,
    @Req() request: FastifyRequest & { cookies?: Record<string, string | undefined> },
    @Res({ passthrough: true }) reply: FastifyReply,
  ): ConsoleSessionStateDto {
    const token = request.cookies?.[sessionCookieName(this.config.publicUrl)];
    if (principal === null || !token) {
      if (token) clearSessionCookie(reply, this.config);
      return { signedIn: false };
    }
    return { signedIn: true, ...sessionOf(principal, token) };
  }

  @Post('session')
  @HttpCode(200)
  @ConsolePublic()
  @ApiConsoleRoute({ public: true }, 400, 401, 403)
  @ApiOperation({
    operationId: 'consoleSignIn',
    summary: 'Sign in with email and password',
    description:
      'Sets the session cookie, `__Host-warden_session` (HttpOnly, Secure, SameSite=Lax, Path=/, 30 days), or `warden_session` without `Secure` on a deployment whose WARDEN_PUBLIC_URL is `http://`. A wrong email and a wrong password get the same 401; 10 failures in 15 minutes per account or per client address give 429. 403: a cross-origin request, or the right password of a user whose organization signs in through SSO only (`sso.passwordLogin: false`).',
  })
  @ApiOkResponse({ type: ConsoleSessionResponseDto, description: 'Signed in: `Set-Cookie` with the session; the user and the CSRF token' })
  async login(
    @Body() body: LoginRequestDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ConsoleSessionResponseDto> {
    const opened = await this.commands.execute(
      new PasswordLoginCommand(body.email, body.password, request.ip, request.id, { totp: body.totp, recoveryCode: body.recoveryCode }),
    );
    setSessionCookie(reply, opened, this.config);
    // Named one by one: what the document declares, never more of the user view than it says.
    const { id, email, orgId, roles, permissions } = opened.user;
    return { user: { id, email, orgId, roles: [...roles], permissions: [...permissions] }, csrfToken: opened.csrfToken };
  }

  @Delete('session')
  @HttpCode(204)
  @RequirePermissions('USE_CONSOLE')
  @ApiConsoleRoute()
  @ApiOperation({ operationId: 'consoleSignOut', summary: 'Sign out: ends the session and clears its cookie' })
  @ApiNoContentResponse({ description: 'Signed out' })
  async logout(@CurrentUser() principal: ConsolePrincipal, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<void> {
    await this.commands.execute(
      new CloseConsoleSessionCommand(principal.orgId, principal.userId, principal.sessionId, {
        orgId: principal.orgId,
        correlationId: request.id,
        actor: `user:${principal.userId}`,
      }),
    );
    clearSessionCookie(reply, this.config);
  }

  @Get('me')
  @RequirePermissions('USE_CONSOLE')
  @ApiConsoleRoute()
  @ApiOperation({ operationId: 'consoleGetMe', summary: 'The signed-in user, and the CSRF token of its session (for a page loaded again)' })
  @ApiOkResponse({ type: ConsoleSessionResponseDto, description: 'The signed-in user and the CSRF token of the session' })
  me(@CurrentUser() principal: ConsolePrincipal, @Req() request: FastifyRequest & { cookies?: Record<string, string | undefined> }): ConsoleSessionResponseDto {
    return sessionOf(principal, request.cookies?.[sessionCookieName(this.config.publicUrl)] ?? '');
  }
}

function sessionOf(principal: ConsolePrincipal, sessionToken: string): ConsoleSessionResponseDto {
  return {
    user: { id: principal.userId, email: principal.email, orgId: principal.orgId, roles: [...principal.roles], permissions: [...principal.permissions] },
    csrfToken: csrfTokenFor(sessionToken),
    secondFactorEnrollmentRequired: principal.secondFactorEnrollmentRequired === true,
  };
}
