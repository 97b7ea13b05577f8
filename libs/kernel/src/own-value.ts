/**
 * `record[key]` as an own property only: keys come from customers and console users (field names,
 * ids), and one like `constructor` or `__proto__` must not resolve to Object.prototype's member.
 */
export function ownValue<R extends { readonly [key: string]: unknown }>(record: R, key: string): R[string] | undefined {
  return Object.hasOwn(record, key) ? (record[key] as R[string]) : undefined;
}
