import module from 'node:module';

/**
 * Checked before anything else is imported, so an old Node fails with one clear line instead
 * of a syntax or module error from a dependency.
 */
export const MINIMUM_NODE_MAJOR = 24;

export function assertNodeVersion(): void {
  const major = Number(process.versions.node.split('.')[0]);
  if (major < MINIMUM_NODE_MAJOR) {
    process.stderr.write(
      `Warden needs Node.js ${MINIMUM_NODE_MAJOR} or newer (this is ${process.version}); run it through npm, which uses the pinned Node (npm start; a script such as a bench: npm exec -- node bench/flood.mjs).\n`,
    );
    process.exit(1);
  }
}

/**
 * What both entries (main.ts, cli.ts) do before anything else: refuse an old Node, then keep V8's
 * compiled code for what they load on disk between runs (Node's compile cache, in
 * <OS temp dir>/node-compile-cache unless NODE_COMPILE_CACHE names another folder;
 * NODE_DISABLE_COMPILE_CACHE=1 turns it off): a run with a warm cache compiles nearly nothing.
 */
export function prepareEntry(): void {
  assertNodeVersion();
  module.enableCompileCache();
}
