// The house's schematics (collection.json): plain file templates, in the layout and naming of
// docs/architecture.md ("Layout", "Write side"). A Rule is a function of the file tree, so
// nothing here needs the schematics library itself.
'use strict';

const KEBAB = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;

function names(options) {
  const name = String(options.name ?? '');
  if (!KEBAB.test(name)) throw new Error(`"${name}" is not a kebab-case name (e.g. close-job)`);
  if (!options.sourceRoot || options.sourceRoot === 'apps/server/src') {
    throw new Error('Name the library with --project (e.g. nest generate command close-job --project review)');
  }
  const pascal = name.replace(/(^|-)([a-z0-9])/g, (_, __, c) => c.toUpperCase());
  return { name, pascal, camel: pascal[0].toLowerCase() + pascal.slice(1), root: options.sourceRoot.replace(/\/+$/, '') };
}

function create(files) {
  return (tree) => {
    for (const [path, text] of Object.entries(files)) {
      if (tree.exists(path)) throw new Error(`${path} exists already`);
      tree.create(path, text);
    }
    return tree;
  };
}

exports.command = (options) => {
  const { name, pascal, root } = names(options);
  const dir = `${root}/commands/${name}`;
  return create({
    [`${dir}/${name}.command.ts`]: `import { Command } from '@nestjs/cqrs';
import type { CommandContext } from '#warden/kernel';

/** What ${pascal} asks for, and why (write it here). */
export class ${pascal}Command extends Command<void> {
  constructor(readonly context: CommandContext) {
    super();
  }
}
`,
    [`${dir}/${name}.handler.ts`]: `import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { ${pascal}Command } from './${name}.command.js';

/**
 * Decides through a decider and appends with AggregateStore.handle (docs/architecture.md, "Write
 * side"); register the handler in the module's providers.
 */
@CommandHandler(${pascal}Command)
export class ${pascal}Handler implements ICommandHandler<${pascal}Command> {
  async execute(command: ${pascal}Command): Promise<void> {
    throw new Error(\`${pascal}Handler is not written yet (\${command.context.correlationId})\`);
  }
}
`,
  });
};

exports.query = (options) => {
  const { name, pascal, root } = names(options);
  const dir = `${root}/queries/${name}`;
  return create({
    [`${dir}/${name}.query.ts`]: `import { Query } from '@nestjs/cqrs';

/** What ${pascal} answers (write it here). */
export class ${pascal}Query extends Query<unknown> {
  constructor(readonly orgId: string) {
    super();
  }
}
`,
    [`${dir}/${name}.handler.ts`]: `import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { ${pascal}Query } from './${name}.query.js';

/** Reads the module's read model, scoped by the organization (register it in the module's providers). */
@QueryHandler(${pascal}Query)
export class ${pascal}Handler implements IQueryHandler<${pascal}Query> {
  async execute(query: ${pascal}Query): Promise<unknown> {
    throw new Error(\`${pascal}Handler is not written yet (\${query.orgId})\`);
  }
}
`,
  });
};

exports.decider = (options) => {
  const { name, pascal, camel, root } = names(options);
  const dir = `${root}/domain`;
  const files = {
    [`${dir}/${name}.decider.ts`]: `import type { Decider, DomainEvent } from '#warden/kernel';

// A decider is pure (docs/architecture.md, "Write side"): decide(command, state) -> events,
// evolve(state, event) -> state. Declare its events in the module's events file once.
export type ${pascal}Command = { type: 'Start${pascal}'; id: string };
export type ${pascal}Event = DomainEvent<'${pascal}Started', { id: string }>;
export type ${pascal}State = { started: boolean };

export const ${camel}Decider: Decider<${pascal}Command, ${pascal}State, ${pascal}Event> = {
  eventTypes: { ${pascal}Started: true },
  initialState: { started: false },
  decide(command, state) {
    return state.started ? [] : [{ type: '${pascal}Started', data: { id: command.id } }];
  },
  evolve(state, event) {
    switch (event.type) {
      case '${pascal}Started':
        return { ...state, started: true };
    }
  },
};
`,
  };
  if (options.spec !== false) {
    files[`${dir}/${name}.decider.spec.ts`] = `import { describe, it } from 'vitest';
import { deciderSpecification } from '#warden/kernel';
import { ${camel}Decider } from './${name}.decider.js';

const spec = deciderSpecification(${camel}Decider);

describe('${name} decider', () => {
  it('starts once', () => {
    const started = spec.given([]).when({ type: 'Start${pascal}', id: 'x' }).then([{ type: '${pascal}Started', data: { id: 'x' } }]);
    spec.given(started).when({ type: 'Start${pascal}', id: 'x' }).thenNothing();
  });
});
`;
  }
  return create(files);
};
