/**
 * House rules from DESIGN.md section 4, checked on every `npm test`.
 * @type {import('dependency-cruiser').IConfiguration}
 */
const INFRA = '(kernel|platform|eventstore|readstore|storage|sqlite)';
const DOMAIN = '^(libs/[^/]+/src/domain/|test/fixtures/impure-domain/domain/)';
/** Where a library's entries and domain are: libs/<lib>/src/, or a layer-rule fixture (test/layer-rules.spec.ts). */
const ENTRIES = '^(libs/[^/]+/src|test/fixtures/leaky-entry)/';
const FRAMEWORKS = '(^|/)node_modules/(@nestjs|fastify|@fastify|mongoose|mongodb|better-sqlite3|@kurrent|undici|pino|prom-client|@nats-io)/';

/**
 * Bus messages and their handlers, as the house's schematics lay them out (docs/architecture.md,
 * "Ports"): `<lib>/src/(commands|queries)/<name>/<name>.(command|query).ts` beside
 * `<name>.handler.ts`. The first group is the fixture prefix of test/layer-rules.spec.ts, empty in
 * the code base (an optional group that does not match would shift the others).
 */
const BUS = '^((?:test/fixtures/bus-messages/)?)libs/([^/]+)/src/(commands|queries)/([^/]+)/\\4';
const MESSAGE = '^(test/fixtures/bus-messages/)?libs/[^/]+/src/(commands|queries)/[^/]+/[^/]+\\.(command|query)\\.ts$';

/** What a domain/ folder may not reach: frameworks, databases, the network, infrastructure libraries. */
const IMPURE = [FRAMEWORKS, '^node:(http|https|net|dns|tls)$', '^(http|https|net|dns|tls)$', '^libs/(platform|eventstore|readstore|storage|sqlite)/'];

module.exports = {
  forbidden: [
    {
      name: 'domain-is-pure',
      comment: 'domain/ imports nothing from Nest, databases or the network, and no infrastructure library',
      severity: 'error',
      from: { path: DOMAIN, pathNot: '\\.spec\\.ts$' },
      to: { pathNot: '^libs/kernel/', path: IMPURE },
    },
    {
      name: 'domain-is-pure-transitively',
      comment:
        "nor through anything it imports, even only for types: a name taken from another module's index.ts drags that module's Nest, database and network code into the domain (use its contracts.ts)",
      severity: 'error',
      from: { path: DOMAIN, pathNot: '\\.spec\\.ts$' },
      to: { path: IMPURE, reachable: true },
    },
    {
      name: 'kernel-is-framework-free',
      severity: 'error',
      from: { path: '^libs/kernel/', pathNot: '\\.spec\\.ts$' },
      to: { path: [FRAMEWORKS, '^libs/(?!kernel/)'] },
    },
    {
      name: 'modules-talk-through-their-index',
      comment:
        "a library uses another library only through that library's entries: src/index.ts, contracts.ts or http.ts (so never through its domain files: their events, deciders, models)",
      severity: 'error',
      from: { path: '^libs/([^/]+)/' },
      to: { path: '^libs/([^/]+)/src/(?!(index|contracts|http)\\.ts$)', pathNot: '^libs/$1/' },
    },
    {
      name: 'events-declared-in-owner-contracts',
      comment:
        'an event type is declared once, by the library that owns it, in a domain/*.events.ts file that its contracts.ts exports (docs/architecture.md, "Events"): an events file anywhere else declares events outside their owner\'s contracts',
      severity: 'error',
      from: { path: '\\.events\\.ts$', pathNot: '^libs/[^/]+/src/domain/[^/]+\\.events\\.ts$' },
      to: {},
    },
    {
      name: 'domain-only-through-contracts',
      comment:
        "a library's domain files (its events among them) are reached from other libraries only through its contracts.ts: its index.ts and http.ts re-export contracts.ts, never domain/ (with modules-talk-through-their-index, no library imports another's domain files but through its contracts)",
      severity: 'error',
      from: { path: `${ENTRIES}(index|http)\\.ts$` },
      to: { path: `${ENTRIES}domain/` },
    },
    {
      name: 'apps-use-module-indexes',
      severity: 'error',
      from: { path: '^apps/' },
      // audit's verifier.ts: the offline check's framework-free entry (docs/architecture.md, "Build").
      to: { path: '^libs/[^/]+/src/(?!(index|contracts|http)\\.ts$)', pathNot: '^libs/audit/src/verifier\\.ts$' },
    },
    {
      name: 'infrastructure-knows-no-domain-module',
      comment: "but the console guard's permissions are identity's access table: types only, from its framework-free contracts.ts",
      severity: 'error',
      from: { path: `^libs/${INFRA}/` },
      to: { path: `^libs/(?!${INFRA}/)`, pathNot: '^libs/identity/src/contracts\\.ts$' },
    },
    {
      name: 'infrastructure-takes-only-types-from-identity',
      comment: "the access table's names, never its code: infrastructure runs nothing of a domain module's",
      severity: 'error',
      from: { path: `^libs/${INFRA}/` },
      to: { path: '^libs/identity/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'libs-never-import-apps',
      severity: 'error',
      from: { path: '^libs/' },
      to: { path: '^apps/' },
    },
    {
      name: 'production-code-never-imports-tests',
      severity: 'error',
      from: { path: '^(apps|libs)/', pathNot: '\\.(spec|contract)\\.ts$' },
      to: { path: '^test/' },
    },
    {
      name: 'bus-message-has-its-handler',
      comment:
        'a command or query is declared in the module that handles it, beside its handler (a handler elsewhere imports it through the declaring module\'s index, never directly): a message with no handler importing it is declared outside its handler\'s module, or handled nowhere. What one module asks of another in process is a port (docs/architecture.md, "Ports")',
      severity: 'error',
      module: { path: MESSAGE, numberOfDependentsLessThan: 1 },
      from: { path: '\\.handler\\.ts$' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  required: [
    {
      name: 'bus-message-beside-its-handler',
      comment:
        'a handler handles the command or query declared beside it, in its own module: a handler of another module\'s message means the message is declared outside its handler\'s module (make it a port, docs/architecture.md, "Ports")',
      severity: 'error',
      module: { path: `${BUS}\\.handler\\.ts$` },
      to: { path: '^$1libs/$2/src/$3/$4/$4\\.(command|query)\\.ts$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['source', 'import', 'require', 'node', 'default', 'types'] },
    exclude: { path: '^dist/' },
  },
};
