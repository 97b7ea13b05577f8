import { Readable } from 'node:stream';
import { Controller, Get, Header, Query, StreamableFile } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { type ConsolePrincipal, CurrentUser, RequirePermissions } from '#warden/platform';
import { ApiConsoleRoute } from '#warden/platform/http';
import { ExportAuditQuery } from './export-audit.query.js';
import { ExportAuditRequestDto } from './export-audit.request.dto.js';

@Controller('api/console/v1/audit/export')
export class ExportAuditHttpController {
  constructor(private readonly queries: QueryBus) {}

  @Get()
  @ApiOperation({
    operationId: 'consoleExportAudit',
    summary: "The organization's event history with its audit chain, for an auditor to verify offline",
    description:
      'NDJSON (docs/audit.md): a header line, one line per event of the organization in chain order with its stored form ' +
      '(personal fields sealed, in plaintext under `personal` only with `includePersonalData=true`; credentials as digests) and its link, ' +
      "then a head signed by the organization's key; signed checkpoints are events of type AuditChainCheckpointed. " +
      '`warden audit verify <file> --jwks <GET /api/v1/signing_keys?include=retired>` checks it. 400 with a pointer when `from` or `to` ' +
      'is not an ISO 8601 datetime or `from` is after `to`. 403 for `includePersonalData=true` without EXPORT_AUDIT_PERSONAL_DATA (ADMIN) ' +
      "or the organization's grant to AUDITOR (`org.settings.auditorPersonalData`): an ANALYST never exports personal data.",
  })
  @ApiOkResponse({ description: 'One JSON document per line', content: { 'application/x-ndjson': { schema: { type: 'string' } } } })
  @ApiConsoleRoute({}, 400, 403)
  @RequirePermissions('VIEW_AUDIT')
  @Header('Content-Type', 'application/x-ndjson; charset=utf-8')
  @Header('Cache-Control', 'no-store')
  async export(@Query() query: ExportAuditRequestDto, @CurrentUser() user: ConsolePrincipal): Promise<StreamableFile> {
    const lines = await this.queries.execute(new ExportAuditQuery(user.orgId, query.from, query.to, user, query.includePersonalData === 'true'));
    return new StreamableFile(Readable.from(withNewlines(lines)), { type: 'application/x-ndjson; charset=utf-8' });
  }
}

async function* withNewlines(lines: AsyncIterable<string>): AsyncGenerator<string> {
  for await (const line of lines) yield `${line}\n`;
}
