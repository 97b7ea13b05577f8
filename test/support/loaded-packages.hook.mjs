// Loaded with `node --import` by test/cli-startup.spec.ts: records the package of every module
// the process resolves (ESM imports and CommonJS requires alike, through the synchronous hooks)
// and writes the sorted list to the file WARDEN_TEST_LOADED_PACKAGES names when the process exits.
// Packages bundled into the built entries (scripts/bundle.mjs) are not resolved one by one: a
// bundle file that is loaded counts as loading the packages it holds, as its packages.json lists.
import { readFileSync, writeFileSync } from 'node:fs';
import module from 'node:module';
import { basename, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const packages = new Set();
module.registerHooks({
  resolve(specifier, context, nextResolve) {
    const resolved = nextResolve(specifier, context);
    const names = resolved.url.match(/\/node_modules\/((?:@[^/]+\/)?[^/]+)\//g);
    if (names) packages.add(names.at(-1).slice('/node_modules/'.length, -1));
    else if (resolved.url.startsWith('file:') && resolved.url.includes('/dist/apps/server/bundle/')) {
      const file = fileURLToPath(resolved.url);
      const held = JSON.parse(readFileSync(`${dirname(file)}/packages.json`, 'utf8'));
      for (const name of held[basename(file)] ?? []) packages.add(name);
    }
    return resolved;
  },
});
process.once('exit', () => writeFileSync(process.env.WARDEN_TEST_LOADED_PACKAGES, JSON.stringify([...packages].sort())));
