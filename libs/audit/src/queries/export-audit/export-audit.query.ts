import { Query } from '@nestjs/cqrs';
import type { Permission } from '#warden/identity/contracts';

/**
 * The organization's audit export (docs/audit.md) as NDJSON lines, produced as they are read.
 * `from`/`to` are as the request gave them (checked by the handler); personal fields are null
 * unless `personalData` is asked for and the viewer may have it (auditPersonalDataAccess).
 */
export class ExportAuditQuery extends Query<AsyncIterable<string>> {
  constructor(
    readonly orgId: string,
    readonly from: unknown,
    readonly to: unknown,
    readonly viewer: { readonly permissions: readonly Permission[] },
    readonly personalData = false,
  ) {
    super();
  }
}
