export { ErasureModule } from './erasure.module.js';
export * from './contracts.js';
export { GetGdprDeletionQuery, type GdprDeletionView } from './queries/get-gdpr-deletion/get-gdpr-deletion.query.js';
