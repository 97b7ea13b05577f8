// The HTTP entry, `#warden/ingestion/http`: routes and request/response DTOs (Swagger, class-validator).
// Server processes compose it; the CLI loads only the core entry (index.ts).
export { IngestionHttpModule } from './ingestion-http.module.js';
