// The HTTP entry, `#warden/appeals/http`: controllers and DTOs, composed only where HTTP is served.
export { AppealsHttpModule } from './appeals-http.module.js';
export { SubmitAppealRequestDto } from './commands/submit-appeal/submit-appeal.request.dto.js';
export { AppealsReportResponseDto } from './queries/appeals-report/appeals-report.response.dto.js';
