// The HTTP entry, `#warden/audit/http`: controllers and DTOs, composed only where HTTP is served.
export { AuditHttpModule } from './audit-http.module.js';
