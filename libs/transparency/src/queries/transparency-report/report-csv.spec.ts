import { describe, expect, it } from 'vitest';
import { csvField } from './report-csv.js';

describe("the transparency report's CSV fields", () => {
  it('quote what RFC 4180 needs quoted', () => {
    expect(csvField('a, "b"')).toBe('"a, ""b"""');
    expect(csvField('line\nbreak')).toBe('"line\nbreak"');
    expect(csvField(null)).toBe('');
    expect(csvField(true)).toBe('true');
  });

  it('keep a spreadsheet from running a text as a formula (a policy or reporter type id written by a person), and leave numbers as they are', () => {
    expect(csvField('=HYPERLINK("https://evil.example")')).toBe(`"'=HYPERLINK(""https://evil.example"")"`);
    expect(['+1', '-2', '@SUM(A1)', '\tx', '\rx'].map(csvField)).toEqual(["'+1", "'-2", "'@SUM(A1)", "'\tx", `"'\rx"`]);
    expect(csvField(-3)).toBe('-3');
    expect(csvField('spam')).toBe('spam');
  });
});
