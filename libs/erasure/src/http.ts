// The HTTP entry, `#warden/erasure/http`: controllers and DTOs, composed only where HTTP is served.
export { ErasureHttpModule } from './erasure-http.module.js';
