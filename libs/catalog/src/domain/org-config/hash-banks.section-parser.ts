import * as z from 'zod';
import { type HashBankDefinition, HASH_TYPES, type HashType } from '../catalog.model.js';
import { hashFormat, parseHashLines } from '../hash-lines.js';
import { idSchema, nameSchema } from './common-fields.schema.js';
import { describeValue, errorMessage, type Path, type ProblemList } from './config-problems.js';
import { entriesOf, isOneOf, listAt, stringAt } from './raw-document.reader.js';

export const PDQ_MAX_DISTANCE = 256;
const PDQ_DEFAULT_MAX_DISTANCE = 31;

/** Hashes stay raw here: a bank may hold a million of them, checked by a plain loop in `resolveHashBanks`. */
export const hashBankSchema = z.strictObject({
  id: idSchema,
  name: nameSchema,
  hashType: z.enum(HASH_TYPES),
  maxDistance: z.number().int().min(0).max(PDQ_MAX_DISTANCE).nullable().optional(),
  hashes: z.array(z.string()).default([]),
  hashesFile: z.string().min(1).optional(),
});

/** Reads a file relative to the configuration file; throws when it cannot. */
export type ReadHashesFile = (relativePath: string) => string;

export type ResolvedHashes = Pick<HashBankDefinition, 'maxDistance' | 'hashes'>;

const MAX_REPORTED_BAD_LINES = 20;

/** Resolved hashes by hash bank index; banks with an unknown hashType cannot be checked. */
export function resolveHashBanks(doc: Record<string, unknown>, readHashesFile: ReadHashesFile, problems: ProblemList): Map<number, ResolvedHashes> {
  const resolved = new Map<number, ResolvedHashes>();
  for (const { index, raw } of entriesOf(doc, 'hashBanks')) {
    if (!isOneOf(HASH_TYPES, raw.hashType)) continue;
    const path = ['hashBanks', index];
    const format = hashFormat(raw.hashType);
    const hashes = new Set<string>();
    listAt(raw, 'hashes').forEach((hash, i) => {
      if (typeof hash !== 'string') return;
      const trimmed = hash.trim();
      if (format.pattern.test(trimmed)) hashes.add(trimmed.toLowerCase());
      else problems.add([...path, 'hashes', i], `${describeValue(hash)} is not a ${format.description}`);
    });
    const file = stringAt(raw, 'hashesFile');
    if (file !== undefined && file !== '') {
      addHashesFromFile(file, raw.hashType, hashes, [...path, 'hashesFile'], readHashesFile, problems);
    }
    resolved.set(index, { maxDistance: resolveMaxDistance(raw.hashType, raw.maxDistance, path, problems), hashes: [...hashes] });
  }
  return resolved;
}

/** The range of a given value is checked by the schema; here only whether it may be given at all. */
function resolveMaxDistance(hashType: HashType, given: unknown, path: Path, problems: ProblemList): number | null {
  const value = typeof given === 'number' ? given : null;
  if (hashType === 'PDQ') return value ?? PDQ_DEFAULT_MAX_DISTANCE;
  if (given !== undefined && given !== null) problems.add([...path, 'maxDistance'], `applies to PDQ banks only, not ${hashType}`);
  return null;
}

/** The file's lines (parseHashLines): the first MAX_REPORTED_BAD_LINES bad ones reported, then how many more. */
function addHashesFromFile(file: string, hashType: HashType, hashes: Set<string>, path: Path, readHashesFile: ReadHashesFile, problems: ProblemList): void {
  let text: string;
  try {
    text = readHashesFile(file);
  } catch (error) {
    problems.add(path, `cannot read hashes file "${file}": ${errorMessage(error)}`);
    return;
  }
  const read = parseHashLines(text, hashType);
  for (const hash of read.hashes) hashes.add(hash);
  for (const problem of read.problems.slice(0, MAX_REPORTED_BAD_LINES)) problems.add(path, problem);
  if (read.problems.length > MAX_REPORTED_BAD_LINES) {
    const more = read.problems.length - MAX_REPORTED_BAD_LINES;
    problems.addUnlisted(path, `… and ${more} more malformed lines`, more);
  }
}
