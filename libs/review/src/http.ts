// The HTTP entry, `#warden/review/http`: controllers and DTOs, composed only where HTTP is served.
export { ReviewHttpModule } from './review-http.module.js';
export { ReviewJobResponseDto } from './queries/get-review-job/review-job.response.dto.js';
export { QueueDefinitionResponseDto } from './commands/define-queue/queue.response.dto.js';
