// Loaded with `node --import` by test/cli-startup.spec.ts: records the package of every module
// the process resolves (ESM imports and CommonJS requires alike, through the synchronous hooks)
// and writes the sorted list to the file WARDEN_TEST_LOADED_PACKAGES names when the process exits.
import { writeFileSync } from 'node:fs';
import module from 'node:module';

const packages = new Set();
module.registerHooks({
  resolve(specifier, context, nextResolve) {
    const resolved = nextResolve(specifier, context);
    const names = resolved.url.match(/\/node_modules\/((?:@[^/]+\/)?[^/]+)\//g);
    if (names) packages.add(names.at(-1).slice('/node_modules/'.length, -1));
    return resolved;
  },
});
process.once('exit', () => writeFileSync(process.env.WARDEN_TEST_LOADED_PACKAGES, JSON.stringify([...packages].sort())));
