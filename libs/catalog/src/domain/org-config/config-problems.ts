/** `path` looks like `rules[2].conditionSet.conditions[1].comparator`; '' is the whole file. */
export interface ConfigProblem {
  path: string;
  message: string;
  /**
   * Set on a line that stands for problems not listed one by one (`… and 5 more malformed
   * lines`): how many. Such a line is not a problem of its own, so a count of problems adds this
   * instead of 1 (problemCount).
   */
  unlisted?: number;
}

/** How many problems a list reports, counting those a line stands for without listing them. */
export function problemCount(problems: readonly ConfigProblem[]): number {
  return problems.reduce((n, p) => n + (p.unlisted ?? 1), 0);
}

export type PathSegment = string | number;
export type Path = readonly PathSegment[];

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

export function formatPath(path: Path): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (IDENTIFIER.test(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

/** Collects every problem of one file, so that an author sees them all at once. */
export class ProblemList {
  private readonly items: Array<{ path: Path; message: string; unlisted?: number }> = [];
  private readonly silenced = new Set<string>();

  get isEmpty(): boolean {
    return this.items.length === 0;
  }

  /** Every problem as found, its path as segments (for JSON pointers). */
  entries(): ReadonlyArray<{ readonly path: Path; readonly message: string }> {
    return [...this.items];
  }

  add(path: Path, message: string): void {
    if (!this.silenced.has(formatPath(path))) this.items.push({ path, message });
  }

  /** A line standing for `count` further problems at `path` that are not listed one by one. */
  addUnlisted(path: Path, message: string, count: number): void {
    if (!this.silenced.has(formatPath(path))) this.items.push({ path, message, unlisted: count });
  }

  /** Further problems at `path` would only restate this one (an unset variable also makes a URL invalid). */
  silence(path: Path): void {
    this.silenced.add(formatPath(path));
  }

  /** Problems whose path is not in the document (a missing key) sort with their nearest existing ancestor. */
  inDocumentOrder(doc: unknown): ConfigProblem[] {
    const positions = documentPositions(doc);
    const positionOf = (path: Path): number => {
      for (let length = path.length; length >= 0; length--) {
        const position = positions.get(formatPath(path.slice(0, length)));
        if (position !== undefined) return position;
      }
      return 0;
    };
    return this.items
      .map((problem) => ({ problem, position: positionOf(problem.path) }))
      .sort((a, b) => a.position - b.position)
      .map(({ problem }) => ({
        path: formatPath(problem.path),
        message: problem.message,
        ...(problem.unlisted === undefined ? {} : { unlisted: problem.unlisted }),
      }));
  }
}

/** Pre-order index of every path in the parsed document, which follows the order of the text. */
function documentPositions(doc: unknown): Map<string, number> {
  const positions = new Map<string, number>();
  const visit = (value: unknown, path: PathSegment[]): void => {
    positions.set(formatPath(path), positions.size);
    if (Array.isArray(value)) value.forEach((item, i) => visit(item, [...path, i]));
    else if (isRecord(value)) for (const [key, item] of Object.entries(value)) visit(item, [...path, key]);
  };
  visit(doc, []);
  return positions;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A value as an author would recognize it in a message. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (value instanceof Date) return 'a date';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') return JSON.stringify(truncate(value));
  return String(value);
}

function truncate(text: string, max = 80): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}
