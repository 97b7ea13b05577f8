import fc from 'fast-check';
import type { FuzzSettings } from './fuzz-settings.js';

/** Runs a property; a failure names the seed and the path that replay it, and the spec file to run. */
export async function checkProperty<T>(property: fc.IAsyncPropertyWithHooks<[T]>, parameters: fc.Parameters<[T]>, settings: FuzzSettings, spec: string) {
  const details = await fc.check(property, parameters);
  if (details.failed) {
    throw new Error(
      `${fc.defaultReportMessage(details)}\n\n${details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance)}\n\nReplay: FUZZ_SEED=${details.seed} FUZZ_PATH=${details.counterexamplePath} FUZZ_KNOWN_DEFECTS=${settings.knownDefects.map((d) => d.id).join(',') || 'none'} npx vitest run ${spec}`,
    );
  }
  return details;
}

/** The first bytes of a body sent, printable. */
export function preview(body: Buffer | null): string {
  if (body === null) return '(none)';
  const head = JSON.stringify(body.subarray(0, 300).toString('latin1'));
  return body.length > 300 ? `${head}… (${body.length} bytes)` : head;
}

/**
 * One refused check, for the failure message: the exchange, its problems, and the server's log
 * lines about that request (an unexpected 500 logs its stack there).
 */
export function exchangeFailure(described: string, problems: readonly string[], serverProblems: readonly string[], token: string): string {
  const serverLog = serverProblems.filter((l) => l.includes(token)).map((l) => l.slice(0, 600));
  return `${described}\n${problems.map((p) => `  - ${p}`).join('\n')}${serverLog.length ? `\n  server log:\n    ${serverLog.slice(0, 3).join('\n    ')}` : ''}`;
}
