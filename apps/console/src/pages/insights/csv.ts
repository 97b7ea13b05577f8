export type Cell = string | number | null;

/**
 * RFC 4180 CSV: fields with a comma, quote or line break are quoted, quotes doubled. A text that
 * starts with `=`, `+`, `-`, `@`, a tab or a carriage return gets a leading `'`, or a spreadsheet
 * would run it as a formula (OWASP, "CSV Injection"); numbers are written as they are.
 */
export function toCsv(columns: readonly string[], rows: readonly (readonly Cell[])[]): string {
  const field = (value: Cell) => {
    const text = value === null ? '' : typeof value === 'string' && /^[=+\-@\t\r]/.test(value) ? `'${value}` : String(value);
    return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
  };
  return [columns, ...rows].map((row) => row.map(field).join(',')).join('\r\n') + '\r\n';
}
