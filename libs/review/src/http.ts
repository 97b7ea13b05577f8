// The HTTP entry, `#warden/review/http`: controllers and DTOs, composed only where HTTP is served.
export { ReviewHttpModule } from './review-http.module.js';
