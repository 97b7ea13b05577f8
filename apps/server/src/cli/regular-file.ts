import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs';

/**
 * A file a command reads (the configuration file and its `hashesFile`s, `bank import`'s file, `hash`'s images) is a regular file: a FIFO would hold
 * the command until something writes to it, and a device such as /dev/zero is read until memory
 * runs out. Opened without blocking (a FIFO's
 * open waits for a writer otherwise), and checked on the opened file, not on the path.
 */
export function readRegularFile(path: string): string {
  return readRegularFileBytes(path).toString('utf8');
}

/** The bytes of a regular file (a configuration file, an image to hash), refused as readRegularFile refuses. */
export function readRegularFileBytes(path: string): Buffer {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    if (!fstatSync(fd).isFile()) throw new Error('not a regular file');
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}
