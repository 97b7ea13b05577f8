import type { HashType } from './catalog.model.js';

const HASH_HEX_LENGTH: Record<HashType, number> = { PDQ: 64, MD5: 32, SHA256: 64 };

/** What a hash of the type looks like, and how a problem names it (`64-character hex PDQ hash`). */
export function hashFormat(hashType: HashType): { readonly pattern: RegExp; readonly length: number; readonly description: string } {
  const length = HASH_HEX_LENGTH[hashType];
  return { pattern: new RegExp(`^[0-9a-fA-F]{${length}}$`), length, description: `${length}-character hex ${hashType} hash` };
}

/**
 * One hex hash per line, as a bank's `hashesFile` and `bank import` take them: blank lines and `#`
 * comments are skipped, hashes lower-cased and de-duplicated in order. Every bad line is reported
 * with its number and its length (or "not hexadecimal"), never quoted: the file may be any file
 * the command was named (a key, a credentials file by mistake), and problems are printed where
 * logs keep them. A plain loop, not zod: a file may hold a million lines.
 */
export function parseHashLines(text: string, hashType: HashType): { hashes: string[]; problems: string[] } {
  const format = hashFormat(hashType);
  const hashes: string[] = [];
  const problems: string[] = [];
  const seen = new Set<string>();
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    if (!format.pattern.test(line)) {
      const why = line.length === format.length ? 'not hexadecimal' : line.length === 1 ? '1 character' : `${line.length} characters`;
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
