import { writeFileSync } from 'node:fs';
import { rebuildReadModels } from '#warden/eventstore';
import { ProjectionHost, STORAGE, type Storage } from '#warden/storage';
import type { AppCommand, StandaloneCommand } from './cli-command.js';
import { parseCommandArgs, parseSharedOptions } from './command-options.js';

export const rebuildReadModelsCommand: AppCommand = {
  name: 'rebuild-read-models',
  usage: '',
  description: 'empties every read model and replays the whole event log into it',
  async runInApp(args, app, out) {
    parseSharedOptions(args);
    const storage = app.get<Storage>(STORAGE);
    const projections = app
      .get(ProjectionHost)
      .projections()
      .filter((p) => !p.reactor && p.log !== 'as-stored');
    const started = Date.now();
    await rebuildReadModels(projections, storage.events, storage.readStore);
    out(`Rebuilt ${projections.length} projection(s) (${projections.map((p) => p.name).join(', ')}) in ${Date.now() - started} ms`);
    return 0;
  },
};

export const openApiCommand: StandaloneCommand = {
  name: 'openapi',
  usage: '[--out <file>]',
  description: 'writes the OpenAPI document (stdout by default)',
  async run(args, out) {
    const { values } = parseCommandArgs(args, { out: { type: 'string' } });
    // The HTTP stack (Fastify, Swagger) loads for this command only, not for every CLI call.
    const { generateOpenApiDocument } = await import('../openapi-document.js');
    const json = JSON.stringify(await generateOpenApiDocument(), null, 2) + '\n';
    if (values.out) {
      writeFileSync(values.out, json);
      out(`Wrote ${values.out}`);
    } else out(json.trimEnd());
    return 0;
  },
};
