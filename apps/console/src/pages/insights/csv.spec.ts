import { describe, expect, it } from 'vitest';
import { toCsv } from './csv';

describe("the Insights charts' CSV files", () => {
  it('quotes what RFC 4180 needs quoted', () => {
    expect(
      toCsv(
        ['name', 'count'],
        [
          ['a, "b"', 1],
          ['line\nbreak', null],
        ],
      ),
    ).toBe('name,count\r\n"a, ""b""",1\r\n"line\nbreak",\r\n');
  });

  it('keeps a spreadsheet from running a text as a formula, and leaves numbers as they are', () => {
    const rows = [
      ['=HYPERLINK("https://evil.example","x")', -3],
      ['+1', 0],
      ['-2', 2],
      ['@SUM(A1)', 1],
      ['\tx', 1],
      ['safe', 1],
    ];
    expect(toCsv(['name', 'count'], rows).split('\r\n').slice(1, -1)).toEqual([
      `"'=HYPERLINK(""https://evil.example"",""x"")",-3`,
      "'+1,0",
      "'-2,2",
      "'@SUM(A1),1",
      "'\tx,1",
      'safe,1',
    ]);
  });
});
