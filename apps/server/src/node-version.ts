/**
 * Checked before anything else is imported, so an old Node fails with one clear line instead
 * of a syntax or module error from a dependency.
 */
export const MINIMUM_NODE_MAJOR = 24;

export function assertNodeVersion(): void {
  const major = Number(process.versions.node.split('.')[0]);
  if (major < MINIMUM_NODE_MAJOR) {
    process.stderr.write(
      `Warden needs Node.js ${MINIMUM_NODE_MAJOR} or newer (this is ${process.version}); run it through npm (npm start), which uses the pinned Node.\n`,
    );
    process.exit(1);
  }
}
