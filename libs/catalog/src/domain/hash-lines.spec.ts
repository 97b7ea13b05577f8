import { describe, expect, it } from 'vitest';
import { parseHashLines } from './hash-lines.js';

const pdq = 'f8f8f0cee0f4a84f06370a22038f63f0b36e2ed596621e1d33e6b39c4e9c9b22';

describe('bank import lines', () => {
  it('reads one hash per line, skipping blanks and comments, lower-casing and de-duplicating', () => {
    expect(parseHashLines(`# header\n\n${pdq.toUpperCase()}\n  ${pdq}  \r\n`, 'PDQ')).toEqual({ hashes: [pdq], problems: [] });
  });

  it('reports every bad line with its number, by the bank type', () => {
    const { problems } = parseHashLines(`${pdq}\nnope\n${pdq.slice(0, 32)}\n`, 'PDQ');
    // Never quoted: the file may be any file the CLI was named by mistake.
    expect(problems).toEqual(['line 2: not a 64-character hex PDQ hash (4 characters)', 'line 3: not a 64-character hex PDQ hash (32 characters)']);
    expect(parseHashLines(`${'z'.repeat(64)}\n`, 'PDQ').problems).toEqual(['line 1: not a 64-character hex PDQ hash (not hexadecimal)']);
    expect(parseHashLines(pdq.slice(0, 32), 'MD5')).toEqual({ hashes: [pdq.slice(0, 32)], problems: [] });
    expect(parseHashLines(pdq, 'MD5').problems).toHaveLength(1);
    expect(parseHashLines('x', 'MD5').problems).toEqual(['line 1: not a 32-character hex MD5 hash (1 character)']);
  });

  it('takes a hash of any known type for ANY (bank remove), and names both lengths otherwise', () => {
    expect(parseHashLines(`${pdq}\n${pdq.slice(0, 32)}\n`, 'ANY')).toEqual({ hashes: [pdq, pdq.slice(0, 32)], problems: [] });
    expect(parseHashLines(`${pdq.slice(0, 40)}\n${'z'.repeat(32)}\n`, 'ANY').problems).toEqual([
      'line 1: not a 32- or 64-character hex hash (40 characters)',
      'line 2: not a 32- or 64-character hex hash (not hexadecimal)',
    ]);
  });
});
