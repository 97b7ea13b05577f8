/**
 * The partial-items module's framework-free contracts: the request it sends the platform for the
 * whole of a partial item (docs/partial-items.md). It appends no events of its own; the module's
 * index re-exports these.
 */
export { partialItemsRequest, type PartialItemsRequest } from './domain/partial-items-exchange.js';
