// The HTTP entry, `#warden/enforcement/http`: controllers and DTOs, composed only where HTTP is served.
export { EnforcementHttpModule } from './enforcement-http.module.js';
