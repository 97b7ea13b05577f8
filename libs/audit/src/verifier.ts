// The offline verifier of an audit export, framework-free (docs/audit.md, "Verifying"): `warden
// audit verify` is an auditor's check on a file and needs none of the application, so it loads
// this entry instead of the module's index, which loads Nest and the stores.
export { verifyAuditExport, type Jwks, type VerifyProblem, type VerifyReport } from './export/audit-verifier.js';
export type { AuditHead } from './export/audit-export.format.js';
