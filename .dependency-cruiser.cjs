/**
 * House rules from DESIGN.md section 4, checked on every `npm test`.
 * @type {import('dependency-cruiser').IConfiguration}
 */
const INFRA = '(kernel|platform|eventstore|readstore|storage|sqlite)';
const DOMAIN = '^(libs/[^/]+/src/domain/|test/fixtures/impure-domain/domain/)';
const FRAMEWORKS = '(^|/)node_modules/(@nestjs|fastify|@fastify|mongoose|mongodb|better-sqlite3|@kurrent|undici|pino|prom-client|@nats-io)/';

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
      comment: "a library uses another library only through that library's entries: src/index.ts, contracts.ts or http.ts",
      severity: 'error',
      from: { path: '^libs/([^/]+)/' },
      to: { path: '^libs/([^/]+)/src/(?!(index|contracts|http)\\.ts$)', pathNot: '^libs/$1/' },
    },
    {
      name: 'apps-use-module-indexes',
      severity: 'error',
      from: { path: '^apps/' },
      to: { path: '^libs/[^/]+/src/(?!(index|contracts|http)\\.ts$)' },
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
      name: 'no-circular',
      severity: 'error',
      from: {},
      to: { circular: true },
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
