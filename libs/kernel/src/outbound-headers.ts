/**
 * Headers the outbound HTTP client sets or manages itself, and drops when a caller sets them
 * (undici manages them, or they would let a caller re-aim the request): the client drops them,
 * and a configuration that names one for a customer's endpoint is refused where it is applied.
 */
export const CLIENT_MANAGED_HEADERS: ReadonlySet<string> = new Set([
  'host',
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'upgrade',
  'expect',
  'content-length',
]);
