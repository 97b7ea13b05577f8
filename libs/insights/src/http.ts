// The HTTP entry, `#warden/insights/http`: controllers and DTOs, composed only where HTTP is served.
export { InsightsHttpModule } from './insights-http.module.js';
