import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('..', import.meta.url).pathname;

interface NestProject {
  readonly type: string;
  readonly root: string;
  readonly sourceRoot: string;
}

/** `nest generate … --dry-run`: what it would create, as the CLI prints it. */
function dryRun(...args: string[]): string {
  return execFileSync(process.execPath, [join(ROOT, 'node_modules/@nestjs/cli/bin/nest.js'), 'generate', ...args, '--dry-run'], {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** The Nest CLI's monorepo configuration (docs/architecture.md, "Nest CLI"). */
describe('nest-cli.json', () => {
  const config = JSON.parse(readFileSync(join(ROOT, 'nest-cli.json'), 'utf8')) as {
    monorepo: boolean;
    collection: string;
    projects: Record<string, NestProject>;
  };

  it('names the server as the application and every library as a project, with its source root', () => {
    expect(config.monorepo).toBe(true);
    const libs = readdirSync(join(ROOT, 'libs')).sort();
    expect(Object.keys(config.projects).sort()).toEqual(['server', ...libs].sort());
    expect(config.projects['server']).toMatchObject({ type: 'application', root: 'apps/server', sourceRoot: 'apps/server/src' });
    for (const lib of libs) expect(config.projects[lib]).toMatchObject({ type: 'library', root: `libs/${lib}`, sourceRoot: `libs/${lib}/src` });
  });

  it("generates a decider with its spec, a command and a query where the house puts them, and Nest's own schematics otherwise", () => {
    expect(dryRun('decider', 'close-widget', '--project', 'review')).toMatch(
      /CREATE libs\/review\/src\/domain\/close-widget\.decider\.ts[\s\S]*CREATE libs\/review\/src\/domain\/close-widget\.decider\.spec\.ts/,
    );
    const command = dryRun('command', 'close-widget', '--project', 'review');
    expect(command).toContain('CREATE libs/review/src/commands/close-widget/close-widget.command.ts');
    expect(command).toContain('CREATE libs/review/src/commands/close-widget/close-widget.handler.ts');
    expect(dryRun('query', 'get-widget', '--project', 'rules')).toContain('CREATE libs/rules/src/queries/get-widget/get-widget.query.ts');
    expect(dryRun('class', 'widget', '--project', 'rules')).toContain('CREATE libs/rules/src/widget/widget.ts');
  });
});
