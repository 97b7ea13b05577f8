// The HTTP entry, `#warden/transparency/http`: controllers and DTOs, composed only where HTTP is served.
export { TransparencyHttpModule } from './transparency-http.module.js';
