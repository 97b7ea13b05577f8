// The HTTP entry, `#warden/appeals/http`: controllers and DTOs, composed only where HTTP is served.
export { AppealsHttpModule } from './appeals-http.module.js';
