import { join } from 'node:path';
import Database from 'better-sqlite3';
import { waitFor } from './wait-for.js';

/** The log position a projection or reactor of the running server has applied, from GET /metrics (0 before its first commit). */
export async function projectionPosition(serverUrl: string, projection: string): Promise<number> {
  const res = await fetch(`${serverUrl}/metrics`);
  if (res.status !== 200) throw new Error(`GET /metrics answered ${res.status}`);
  const line = (await res.text()).split('\n').find((l) => l.startsWith(`warden_projection_position{projection="${projection}"} `));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

/** The position of the last event of these types in the embedded log (0 when there is none). */
export function lastPosition(dataDir: string, eventTypes: readonly string[]): number {
  const db = new Database(join(dataDir, 'warden.db'), { readonly: true });
  try {
    const marks = eventTypes.map(() => '?').join(', ');
    const row = db.prepare(`SELECT max(position) AS p FROM events WHERE type IN (${marks})`).get(...eventTypes) as { p: number | null };
    return row.p ?? 0;
  } finally {
    db.close();
  }
}

/**
 * The positive signal that nothing more is coming: waits until the server's projection (or
 * reactor) has applied every event of the types it handles that is in the log now. A runner
 * applies events in log order and commits a batch only when all of it is handled, so whatever
 * it does about an earlier event is done, and in the log, by then.
 */
export async function waitUntilProcessed(
  serverUrl: string,
  dataDir: string,
  projection: string,
  eventTypes: readonly string[],
  timeoutMs?: number,
): Promise<void> {
  const target = lastPosition(dataDir, eventTypes);
  await waitFor(async () => (await projectionPosition(serverUrl, projection)) >= target, {
    what: `projection ${projection} to apply the log up to position ${target} (the last ${eventTypes.join(' or ')})`,
    timeoutMs,
  });
}
