export { AuditModule } from './audit.module.js';
export type * from './domain/gdpr-deletion.events.js';
export { gdprDeletionStream } from './domain/gdpr-deletion.streams.js';
export { GetGdprDeletionQuery, type GdprDeletionView } from './queries/get-gdpr-deletion/get-gdpr-deletion.query.js';
export { AuditExporter, type AuditExportRequest } from './export/audit-exporter.js';
export { verifyAuditExport, type Jwks, type VerifyProblem, type VerifyReport } from './export/audit-verifier.js';
export type * from './export/audit-export.format.js';
export { AUDIT_CHAIN_PROJECTION } from './chain/audit-chain.projection.js';
export type * from './chain/audit-checkpoint.events.js';
