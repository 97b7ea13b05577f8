import { readFileSync } from 'node:fs';

/** The package version, read once from package.json (three levels above dist/apps/server/src or apps/server/src). */
export const WARDEN_VERSION: string = (() => {
  for (const rel of ['../../../package.json', '../../../../package.json']) {
    try {
      return (JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8')) as { version: string }).version;
    } catch {
      // try the next layout
    }
  }
  return '0.0.0';
})();
