import { type IQueryHandler, QueryBus, QueryHandler } from '@nestjs/cqrs';
import { GetCatalogSettingsQuery } from '#warden/catalog';
import { parseIsoInstant } from '#warden/catalog/contracts';
import { type ErrorDetail, forbidden, invalidInput } from '#warden/kernel';
import { auditPersonalDataAccess } from '#warden/identity/contracts';
import { AuditExporter } from '../../export/audit-exporter.js';
import { ExportAuditQuery } from './export-audit.query.js';

@QueryHandler(ExportAuditQuery)
export class ExportAuditHandler implements IQueryHandler<ExportAuditQuery> {
  constructor(
    private readonly exporter: AuditExporter,
    private readonly queries: QueryBus,
  ) {}

  /** Checks the bounds before the first line, so a bad request is a 400, not a broken stream. */
  async execute(query: ExportAuditQuery): Promise<AsyncIterable<string>> {
    const problems: ErrorDetail[] = [];
    const bound = (value: unknown, pointer: string): Date | undefined => {
      if (value === undefined) return undefined;
      const instant = parseIsoInstant(value);
      if (instant) return instant;
      problems.push({ title: 'Invalid export window', pointer, detail: 'expected an ISO 8601 datetime with a time part (2026-03-01T00:00:00Z)' });
      return undefined;
    };
    const from = bound(query.from, '/from');
    const to = bound(query.to, '/to');
    if (from && to && from.getTime() > to.getTime()) problems.push({ title: 'Invalid export window', pointer: '/from', detail: 'from is after to' });
    if (problems.length > 0) throw invalidInput(...problems);
    if (query.personalData) {
      const settings = await this.queries.execute(new GetCatalogSettingsQuery(query.orgId, 'settings'));
      if (!auditPersonalDataAccess(query.viewer.permissions, settings?.auditorPersonalData === true).export) {
        throw forbidden(
          'An export with personal data needs EXPORT_AUDIT_PERSONAL_DATA (ADMIN), or the AUDITOR role in an organization that grants it (org.settings.auditorPersonalData)',
        );
      }
    }
    return this.exporter.lines({ orgId: query.orgId, from, to, personalData: query.personalData });
  }
}
