/**
 * The inbound module's framework-free contracts: the envelope of the inbound topic's messages
 * (docs/inbound-topic.md). It appends no events of its own (ingestion's SubmitItemsCommand does);
 * the module's index re-exports these.
 */
export { ENVELOPE_VERSIONS, ITEM_SUBMISSION_EVENT, readItemSubmissionEvent, type ItemSubmissionEvent } from './domain/item-submission-event.js';
