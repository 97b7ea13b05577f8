import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs';

/**
 * A hashes file (apply's `hashesFile`, `bank import`'s file) is a regular file: a FIFO would hold
 * the command until something writes to it, and a device such as /dev/zero is read until memory
 * runs out. Opened without blocking (a FIFO's
 * open waits for a writer otherwise), and checked on the opened file, not on the path.
 */
export function readRegularFile(path: string): string {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    if (!fstatSync(fd).isFile()) throw new Error('not a regular file');
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}
