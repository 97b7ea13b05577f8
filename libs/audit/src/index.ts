export { AuditModule } from './audit.module.js';
export { AuditExporter, type AuditExportRequest } from './export/audit-exporter.js';
export * from './verifier.js';
export type * from './export/audit-export.format.js';
export { AUDIT_CHAIN_PROJECTION } from './chain/audit-chain.projection.js';
export { GetItemHistoryQuery, type ItemHistoryPage } from './queries/get-item-history/get-item-history.query.js';
export { ExportAuditQuery } from './queries/export-audit/export-audit.query.js';
export * from './contracts.js';
export { checkReplayedChain, type ReplayedChainInput, type ReplayedChainReport } from './replay/replayed-chain-check.js';
