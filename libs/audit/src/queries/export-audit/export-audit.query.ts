import { Query } from '@nestjs/cqrs';

/**
 * The organization's audit export (docs/audit.md) as NDJSON lines, produced as they are read.
 * `from`/`to` are as the request gave them (checked by the handler); personal fields are null.
 */
export class ExportAuditQuery extends Query<AsyncIterable<string>> {
  constructor(
    readonly orgId: string,
    readonly from: unknown,
    readonly to: unknown,
  ) {
    super();
  }
}
