import type { Family } from './hostile-arbitraries.js';

/**
 * How much the fuzz suite sends and from which seed. `npm test` runs the defaults; `npm run fuzz`
 * sends 50,000 requests; FUZZ_SEED (and FUZZ_PATH, both printed by a failure) replays a run.
 */
export interface FuzzSettings {
  readonly seed: number;
  /** Requests the main property sends (in batches of `concurrency`). */
  readonly requests: number;
  /** Requests the console's property sends: a share of `requests` (300 of the default 2,000). */
  readonly consoleRequests: number;
  /** fast-check's path to a counterexample, to replay exactly the failing case. */
  readonly path: string | undefined;
  readonly concurrency: number;
  /** The known defects whose families the main property leaves out (FUZZ_KNOWN_DEFECTS=none: none). */
  readonly knownDefects: readonly KnownDefect[];
}

/** The fixed seed of `npm test`: the same 2,000 requests every run. */
export const DEFAULT_SEED = 110_011;
export const DEFAULT_REQUESTS = 2_000;

export interface KnownDefect {
  /** The defect's number in issue 11, or a name for one the fuzz suite found that the issue does not list. */
  readonly id: string;
  readonly what: string;
  /** The generator family that triggers it. */
  readonly family: Family;
  /** What the fuzz suite reports when it meets it. */
  readonly symptom: RegExp;
}

/**
 * Defects main still has (none since issue 11 fixed 1-4 and invalid UTF-8). The main property does not generate their families, and each gets a
 * focused test that expects to meet it: when a fix merges, that test fails with "no longer shows",
 * and its entry is removed here (which puts the family back into the main property).
 */
export const KNOWN_DEFECTS: readonly KnownDefect[] = [];

/** The console's routes are few and cheap to cover; each is sent about as many requests as a customer route. */
const CONSOLE_SHARE = 0.15;
const CONSOLE_SHARE_MIN = 40;

export function fuzzSettings(env: Readonly<Record<string, string | undefined>> = process.env): FuzzSettings {
  const seed = env['FUZZ_SEED'] ? Number(env['FUZZ_SEED']) : DEFAULT_SEED;
  const requests = env['FUZZ_RUNS'] ? Number(env['FUZZ_RUNS']) : DEFAULT_REQUESTS;
  if (!Number.isInteger(seed)) throw new Error(`FUZZ_SEED must be an integer, got ${env['FUZZ_SEED']}`);
  if (!Number.isInteger(requests) || requests < 1) throw new Error(`FUZZ_RUNS must be a positive integer, got ${env['FUZZ_RUNS']}`);
  return {
    seed,
    requests,
    consoleRequests: Math.max(CONSOLE_SHARE_MIN, Math.round(requests * CONSOLE_SHARE)),
    path: env['FUZZ_PATH'] || undefined,
    concurrency: 4,
    knownDefects: knownDefects(env['FUZZ_KNOWN_DEFECTS']),
  };
}

/** FUZZ_KNOWN_DEFECTS overrides the list: `none`, or ids such as `1,3` (to check a branch with fixes before editing it). */
function knownDefects(raw: string | undefined): readonly KnownDefect[] {
  if (raw === undefined || raw === '') return KNOWN_DEFECTS;
  if (raw === 'none') return [];
  return raw.split(',').map((id) => {
    const defect = KNOWN_DEFECTS.find((d) => d.id === id.trim());
    if (!defect) throw new Error(`FUZZ_KNOWN_DEFECTS: no known defect '${id}' (known: ${KNOWN_DEFECTS.map((d) => d.id).join(', ')})`);
    return defect;
  });
}
