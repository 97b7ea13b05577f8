import { randomBytes } from 'node:crypto';
import { readlinkSync } from 'node:fs';
import { hostname } from 'node:os';

/**
 * Where a pid means the same process: the host name plus, on Linux, the pid namespace (two
 * containers may share a host name and a data volume, but never a pid namespace by accident).
 */
function pidScope(): string {
  let namespace = '';
  try {
    namespace = /\[(\d+)\]/.exec(readlinkSync('/proc/self/ns/pid'))?.[1] ?? '';
  } catch {
    // Not Linux: the host name alone.
  }
  const host =
    hostname()
      .replace(/[^A-Za-z0-9.-]/g, '-')
      .slice(0, 100) || 'host';
  return namespace ? `${host}@${namespace}` : host;
}

const SCOPE = pidScope();

/**
 * This process as a lease holder: `<scope>/<pid>/<random>`. The random part keeps a later
 * process that gets the same pid apart from the one that held the lease.
 */
export function processHolderId(): string {
  return `${SCOPE}/${process.pid}/${randomBytes(6).toString('hex')}`;
}

/**
 * Whether a holder id names a process in this pid scope that no longer runs (killed, crashed):
 * its lease may be taken without waiting for the expiry. Any doubt (another host or namespace,
 * a running pid, a foreign id format, no permission to ask) answers false, so the lease is then
 * taken only on expiry.
 */
export function holderIsGone(holder: string): boolean {
  const [scope, pid] = holder.split('/');
  if (scope !== SCOPE || pid === undefined || !/^\d+$/.test(pid) || Number(pid) === process.pid) return false;
  try {
    process.kill(Number(pid), 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
