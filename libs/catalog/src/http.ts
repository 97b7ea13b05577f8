// The HTTP entry, `#warden/catalog/http`: routes and request/response DTOs (Swagger, class-validator).
// Server processes compose it; the CLI loads only the core entry (index.ts).
export { CatalogHttpModule } from './catalog-http.module.js';
