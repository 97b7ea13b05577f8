/**
 * House rules from DESIGN.md section 4, checked on every `npm test`.
 * @type {import('dependency-cruiser').IConfiguration}
 */
const INFRA = '(kernel|platform|eventstore|readstore)';
const FRAMEWORKS = '(^|/)node_modules/(@nestjs|fastify|@fastify|mongoose|mongodb|better-sqlite3|@kurrent|undici|pino|prom-client)/';

module.exports = {
  forbidden: [
    {
      name: 'domain-is-pure',
      comment: 'domain/ imports nothing from Nest, databases or the network, and no infrastructure library',
      severity: 'error',
      from: { path: '^libs/[^/]+/src/domain/', pathNot: '\\.spec\\.ts$' },
      to: {
        pathNot: '^libs/kernel/',
        path: [FRAMEWORKS, '^node:(http|https|net|dns|tls)$', '^(http|https|net|dns|tls)$', '^libs/(platform|eventstore|readstore)/'],
      },
    },
    {
      name: 'kernel-is-framework-free',
      severity: 'error',
      from: { path: '^libs/kernel/', pathNot: '\\.spec\\.ts$' },
      to: { path: [FRAMEWORKS, '^libs/(?!kernel/)'] },
    },
    {
      name: 'modules-talk-through-their-index',
      comment: "a library uses another library only through that library's src/index.ts",
      severity: 'error',
      from: { path: '^libs/([^/]+)/' },
      to: { path: '^libs/([^/]+)/src/(?!index\\.ts$)', pathNot: '^libs/$1/' },
    },
    {
      name: 'apps-use-module-indexes',
      severity: 'error',
      from: { path: '^apps/' },
      to: { path: '^libs/[^/]+/src/(?!index\\.ts$)' },
    },
    {
      name: 'infrastructure-knows-no-domain-module',
      severity: 'error',
      from: { path: `^libs/${INFRA}/` },
      to: { path: `^libs/(?!${INFRA}/)` },
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
