export { ErasureModule } from './erasure.module.js';
export type * from './domain/gdpr-deletion.events.js';
export { gdprDeletionStream } from './domain/gdpr-deletion.streams.js';
export { GetGdprDeletionQuery, type GdprDeletionView } from './queries/get-gdpr-deletion/get-gdpr-deletion.query.js';
