import type { HashType } from './catalog.model.js';

const HASH_HEX_LENGTH: Record<HashType, number> = { PDQ: 64, MD5: 32, SHA256: 64 };

/** What a hash of the type looks like, and how a problem names it (`64-character hex PDQ hash`). */
export function hashFormat(hashType: HashType): HashFormat {
  const length = HASH_HEX_LENGTH[hashType];
  return { pattern: new RegExp(`^[0-9a-fA-F]{${length}}$`), lengths: [length], description: `${length}-character hex ${hashType} hash` };
}

interface HashFormat {
  readonly pattern: RegExp;
  /** The lengths a hash of the format has (a line of one of them that fails is not hexadecimal). */
  readonly lengths: readonly number[];
  readonly description: string;
}

/** A hash of any type Warden knows: 32 (MD5) or 64 (PDQ, SHA-256) hex characters. */
const ANY_FORMAT: HashFormat = { pattern: /^(?:[0-9a-fA-F]{32}|[0-9a-fA-F]{64})$/, lengths: [32, 64], description: '32- or 64-character hex hash' };

/**
 * Whether a stored hash could be of the type: its length fits, and, when it fits another type too
 * (PDQ and SHA-256 are both 64 characters), the bank's type before was not that other one.
 */
export function mayBeOfType(hash: string, type: HashType, before: HashType): boolean {
  return hash.length === HASH_HEX_LENGTH[type] && HASH_HEX_LENGTH[before] !== HASH_HEX_LENGTH[type];
}

/**
 * One hex hash per line, as a bank's `hashesFile` and `bank import` take them: blank lines and `#`
 * comments are skipped, hashes lower-cased and de-duplicated in order. Every bad line is reported
 * with its number and its length (or "not hexadecimal"), never quoted: the file may be any file
 * the command was named (a key, a credentials file by mistake), and problems are printed where
 * logs keep them. A plain loop, not zod: a file may hold a million lines.
 */
export function parseHashLines(text: string, hashType: HashType | 'ANY'): { hashes: string[]; problems: string[] } {
  // ANY (`bank remove`): a hash of whatever type an import once put in the bank, such as MD5 lines
  // left in a bank retyped before apply refused that; removing needs only the exact value.
  const format = hashType === 'ANY' ? ANY_FORMAT : hashFormat(hashType);
  const hashes: string[] = [];
  const problems: string[] = [];
  const seen = new Set<string>();
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    if (!format.pattern.test(line)) {
      const why = format.lengths.includes(line.length) ? 'not hexadecimal' : line.length === 1 ? '1 character' : `${line.length} characters`;
      problems.push(`line ${i + 1}: not a ${format.description} (${why})`);
      return;
    }
    const hash = line.toLowerCase();
    if (!seen.has(hash)) {
      seen.add(hash);
      hashes.push(hash);
    }
  });
  return { hashes, problems };
}
