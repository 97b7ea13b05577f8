import type { HashType } from '#warden/catalog';

const LENGTH: Record<HashType, number> = { PDQ: 64, SHA256: 64, MD5: 32 };

/**
 * One hex hash per line; blank lines and `#` comments are skipped. Every bad line is reported
 * with its number, and then nothing is imported.
 */
export function parseHashLines(text: string, hashType: HashType): { hashes: string[]; problems: string[] } {
  const hex = new RegExp(`^[0-9a-fA-F]{${LENGTH[hashType]}}$`);
  const hashes: string[] = [];
  const problems: string[] = [];
  const seen = new Set<string>();
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    if (!hex.test(line)) {
      // Not quoted: the CLI reads whatever file it is named (a key, a credentials file by mistake),
      // and its errors go where logs keep them. Its length or its characters say what is wrong.
      const why = line.length === LENGTH[hashType] ? 'not hexadecimal' : `${line.length} characters`;
      problems.push(`line ${i + 1}: not a ${LENGTH[hashType]}-character hex ${hashType} hash (${why})`);
      return;
    }
    const h = line.toLowerCase();
    if (!seen.has(h)) {
      seen.add(h);
      hashes.push(h);
    }
  });
  return { hashes, problems };
}
