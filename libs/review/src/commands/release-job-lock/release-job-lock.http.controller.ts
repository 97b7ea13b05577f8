import { Controller, Delete, HttpCode, Param, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBody, ApiHeader, ApiNoContentResponse, ApiOperation, ApiParam } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { invalidField } from '#warden/kernel';
import { consoleCommandContext, type ConsolePrincipal, CurrentUser, RequirePermissions } from '#warden/platform';
import { ApiConsoleRoute } from '#warden/platform/http';
import { LockTokenRequestDto } from '../renew-job-lock/lock-token.request.dto.js';
import { ReleaseJobLockCommand } from './release-job-lock.command.js';

export const LOCK_TOKEN_HEADER = 'x-lock-token';

/** DELETE bodies are dropped by some clients and proxies: the token may come in a header instead. */
function lockTokenOf(request: FastifyRequest): string {
  const header = request.headers[LOCK_TOKEN_HEADER];
  if (typeof header === 'string' && header !== '') return header;
  const body = request.body;
  if (body !== undefined && body !== null && (typeof body !== 'object' || Array.isArray(body))) {
    throw invalidField('', 'expected a JSON object');
  }
  const token = (body as { lockToken?: unknown } | null | undefined)?.lockToken;
  if (typeof token !== 'string' || token === '') {
    throw invalidField('/lockToken', `expected the lock token, as a non-empty string in the body or in the ${LOCK_TOKEN_HEADER} header`);
  }
  return token;
}

@Controller('api/console/v1/jobs')
export class ReleaseJobLockHttpController {
  constructor(private readonly commands: CommandBus) {}

  @Delete(':jobId/lock')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'consoleReleaseJobLock',
    summary: 'Give a job back: it is claimable again at once, by anyone',
    description:
      'The lock token in the body (`{"lockToken": …}`) or in the `X-Lock-Token` header. 409 `/errors/lock-not-held` when you do not hold the lock, ' +
      '`/errors/job-closed` when the job is decided. 404 for a job of another organization, or of the child-safety queue without VIEW_CHILD_SAFETY_DATA.',
  })
  @ApiParam({ name: 'jobId' })
  @ApiHeader({ name: 'X-Lock-Token', required: false, description: 'The lock token, when not sent in the body' })
  @ApiBody({ type: LockTokenRequestDto, required: false })
  @ApiNoContentResponse({ description: 'Released' })
  @ApiConsoleRoute({}, 400, 404, 409)
  @RequirePermissions('DECIDE_MRT')
  async release(@Param('jobId') jobId: string, @CurrentUser() user: ConsolePrincipal, @Req() request: FastifyRequest): Promise<void> {
    await this.commands.execute(new ReleaseJobLockCommand(jobId, lockTokenOf(request), user, consoleCommandContext(user, request.id)));
  }
}
