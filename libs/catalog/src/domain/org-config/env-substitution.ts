import { isRecord, type Path, type PathSegment, type ProblemList } from './config-problems.js';

export type EnvValues = Readonly<Record<string, string | undefined>>;

const ENV_REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** Replaces `${NAME}` in every string value; an unset variable is a problem at that value. */
export function substituteEnv(value: unknown, env: EnvValues, path: PathSegment[], problems: ProblemList): unknown {
  if (typeof value === 'string') return substituteInString(value, env, path, problems);
  if (Array.isArray(value)) return value.map((item, i) => substituteEnv(item, env, [...path, i], problems));
  if (isRecord(value)) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, substituteEnv(item, env, [...path, key], problems)]));
  }
  return value;
}

function substituteInString(text: string, env: EnvValues, path: Path, problems: ProblemList): string {
  let missing = false;
  const result = text.replace(ENV_REFERENCE, (reference, name: string) => {
    const replacement = env[name];
    if (replacement !== undefined) return replacement;
    problems.add(path, `environment variable ${name} is not set`);
    missing = true;
    return reference;
  });
  if (missing) problems.silence(path);
  return result;
}
