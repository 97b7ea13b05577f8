// The server's and the CLI's shipped entries: TypeScript's output (dist/apps, dist/libs: some 760
// files, each with decorator metadata already emitted) bundled by esbuild, with most of the
// packages they load, into dist/apps/server/bundle/main.js and cli.js. Loading a few files per
// entry instead of some 2,000 saves Node's per-module resolution and reading at every start
// (docs/testing.md, "Cheaper processes"), and the tests run these files, so they test what
// `npm start`, `warden` and the image run.
//
// - Packages stay in node_modules, loaded by Node as they are, when they must (EXTERNAL: native
//   code, files read beside their own modules, Warden's own `createRequire` of class-transformer,
//   pino's worker-thread transports, jsonc-parser's UMD build whose modules require one another in
//   a way esbuild cannot follow), when they are loaded lazily and large (the KurrentDB,
//   MongoDB, NATS and SAML clients, undici, the password dictionary), or when one of those
//   depends on them: a package is either bundled or external, never both, so no package exists
//   twice (two copies of a package that keeps state, or whose classes are tokens, would break
//   Nest's injection and the validators' metadata). Optional packages that are not installed
//   (Nest's `@nestjs/microservices`, `@fastify/view`, …) stay `require`s that fail as before.
// - Code split: what the sources import lazily (`await import(…)`: the server itself, the CLI's
//   commands, the store adapters, the SAML precheck, the OpenAPI document) stays a separate file
//   that is loaded only when asked for.
// - Every file lands in the one folder, three levels under dist/ like dist/apps/server/src, so
//   the sources' paths relative to `import.meta.url` (the console in dist/console, package.json)
//   hold for both.
// - Names are kept (`keepNames`): Nest and the event store read class names. esbuild's helper
//   for it is made cheap where it has nothing to do (cheapNames below).
// - packages.json beside the entries lists which packages each file holds
//   (test/cli-startup.spec.ts checks what a CLI call loads with it).
import { existsSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { ROOT } from './build-inputs.mjs';

export const BUNDLE_DIR = join(ROOT, 'dist/apps/server/bundle');
export const SERVER_ENTRY = join(BUNDLE_DIR, 'main.js');
export const CLI_ENTRY = join(BUNDLE_DIR, 'cli.js');

const EXTERNAL = [
  'better-sqlite3',
  'sharp',
  '@jsquash/jpeg',
  'swagger-ui-dist',
  'class-transformer',
  'reflect-metadata',
  'pino',
  'mongoose',
  'mongodb',
  '@kurrent/kurrentdb-client',
  '@nats-io/jetstream',
  '@nats-io/transport-node',
  '@nats-io/nats-core',
  '@nats-io/nkeys',
  '@node-saml/passport-saml',
  'passport',
  'undici',
  '@zxcvbn-ts/language-common',
  'jsonc-parser',
  // Starts its threads from a worker script beside its own modules.
  'piscina',
];

const packageOf = (specifier) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

/** EXTERNAL and everything they depend on, as installed (top-level node_modules). */
function externalClosure() {
  const closure = new Set();
  const visit = (name) => {
    if (closure.has(name)) return;
    const manifest = join(ROOT, 'node_modules', name, 'package.json');
    if (!existsSync(manifest)) return;
    closure.add(name);
    const { dependencies = {}, optionalDependencies = {}, peerDependencies = {} } = JSON.parse(readFileSync(manifest, 'utf8'));
    for (const dependency of Object.keys({ ...dependencies, ...optionalDependencies, ...peerDependencies })) visit(dependency);
  };
  for (const name of EXTERNAL) visit(name);
  return closure;
}

/** The folder Node would load package `name` from for a module in `dir`, or undefined. */
function installedFrom(dir, name) {
  for (let at = dir; ; at = dirname(at)) {
    const candidate = join(at, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dirname(at) === at) return undefined;
  }
}

/**
 * Node's modules whose ES-module face is dear: importing `node:http` as an ES module reads every
 * export, and three of them (WebSocket, CloseEvent, MessageEvent) are getters that load undici,
 * 45 ms of every process's start; `node:crypto`'s getters load Web Crypto (14 ms). The bundle
 * imports them through `require` instead (what the packages' CommonJS builds did), exporting the
 * values that are plain properties and leaving out the getters named here: a named import of one
 * of those fails the build (esbuild: no matching export), and so does a namespace import's use of
 * one (esbuild's "will always be undefined", made an error below).
 */
const LAZY_BUILTIN_GETTERS = {
  http: ['WebSocket', 'CloseEvent', 'MessageEvent'],
  crypto: ['webcrypto', 'subtle', 'getRandomValues', 'fips', 'prng', 'pseudoRandomBytes', 'rng'],
};

const lazyBuiltins = {
  name: 'lazy-builtins',
  setup(builder) {
    const names = Object.keys(LAZY_BUILTIN_GETTERS);
    builder.onResolve({ filter: new RegExp(`^(node:)?(${names.join('|')})$`) }, (args) => ({
      path: args.path.replace(/^node:/, ''),
      namespace: 'lazy-builtin',
    }));
    builder.onLoad({ filter: /.*/, namespace: 'lazy-builtin' }, ({ path }) => {
      const actual = createRequire(import.meta.url)(`node:${path}`);
      const skipped = new Set(LAZY_BUILTIN_GETTERS[path]);
      const exported = Object.keys(actual).filter((name) => !skipped.has(name) && /^[A-Za-z_$][\w$]*$/.test(name) && name !== 'default');
      return {
        contents: [
          "import { createRequire } from 'node:module';",
          `const actual = createRequire(import.meta.url)('node:${path}');`,
          'export default actual;',
          ...exported.map((name) => `export const ${name} = actual.${name};`),
        ].join('\n'),
        loader: 'js',
        resolveDir: ROOT,
      };
    });
  },
};

export async function bundleServer() {
  // Loaded only to bundle: a build with nothing changed (`npm start`'s first step) does not pay for it.
  const { build } = await import('esbuild');
  const external = externalClosure();
  const packages = {
    name: 'packages',
    setup(builder) {
      builder.onResolve({ filter: /^[^./#]/ }, (args) => {
        if (args.path.startsWith('node:')) return { path: args.path, external: true };
        const name = packageOf(args.path);
        const installed = installedFrom(args.resolveDir, name);
        // Not installed: an optional package, left to fail at run time as it would unbundled.
        if (installed === undefined) return { path: args.path, external: true };
        // A copy nested under the package that imports it is that package's own: bundled.
        // (Real paths: esbuild gives a package's modules by theirs, and node_modules may be a link.)
        if (external.has(name) && realpathSync(installed) === realpathSync(join(ROOT, 'node_modules', name))) return { path: args.path, external: true };
        return undefined;
      });
    },
  };
  rmSync(BUNDLE_DIR, { recursive: true, force: true });
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: {
      main: 'dist/apps/server/src/main.js',
      cli: 'dist/apps/server/src/cli.js',
      // Started by a server process as a worker thread (ReadModelThread), by its path beside main.js.
      'read-model-thread': 'dist/apps/server/src/read-model-thread.js',
      // Started by an `all` process as a worker thread (BackgroundThread), likewise.
      'background-thread': 'dist/apps/server/src/background-thread.js',
      // Loaded by the RegexPool's threads (piscina), by its path beside the chunk that starts them.
      'regex-match.worker': 'dist/libs/rules/src/evaluation/regex-match.worker.js',
    },
    outdir: BUNDLE_DIR,
    chunkNames: '[name]-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node24',
    keepNames: true,
    // CommonJS packages inside an ES module bundle: their `require`s of Node's modules and of
    // the external packages go through a real require.
    banner: { js: "import { createRequire as __wardenCreateRequire } from 'node:module'; const require = __wardenCreateRequire(import.meta.url);" },
    // Linked to TypeScript's own maps, so `node --enable-source-maps` points at the .ts sources.
    sourcemap: 'linked',
    plugins: [lazyBuiltins, packages],
    metafile: true,
    logLevel: 'warning',
    // A property of a module that the module does not export (a getter lazyBuiltins leaves out).
    logOverride: { 'import-is-undefined': 'error' },
  });
  cheapNames(Object.keys(result.metafile.outputs).filter((file) => file.endsWith('.js')));
  const held = {};
  for (const [file, output] of Object.entries(result.metafile.outputs)) {
    if (!file.endsWith('.js')) continue;
    const names = new Set();
    for (const input of Object.keys(output.inputs)) {
      const at = input.lastIndexOf('node_modules/');
      if (at >= 0) names.add(packageOf(input.slice(at + 'node_modules/'.length)));
    }
    held[relative(BUNDLE_DIR, join(ROOT, file))] = [...names].sort();
  }
  writeFileSync(join(BUNDLE_DIR, 'packages.json'), JSON.stringify(held, null, 1) + '\n');
}

/** esbuild's helper for `keepNames`, as it emits it. */
const NAME_HELPER = 'var __name = (target, value) => __defProp(target, "name", { value, configurable: true });';
/**
 * The same, leaving alone a function that already bears the name (a declaration: `function next()`
 * inside Fastify's hook runner or rxjs's operators gets `__name(next, "next")` on every call), an
 * arrow function (no `prototype`), and an anonymous function (rxjs's operators, written for ES5,
 * create `var next = __name(function (value) {…}, "next")` on every subscription; nothing reads
 * those names). Defining `name` on a function changes its shape: on those hot paths it cost a tenth
 * of an API process's CPU, half of it in garbage collection, and the anonymous functions still 2 to
 * 3 % once the first two were left alone (docs/benchmarks.md, "Single-item submissions under
 * load"). Classes, whose names Nest and the event store read, are still named: esbuild names a
 * class declaration or a class expression assigned to a name (`var Metric = class { static {
 * __name(this, "Metric") } }`, where the class already has its name or another, never none), and
 * the build fails should it ever pass an anonymous class itself (ANONYMOUS_CLASS).
 */
const CHEAP_NAME_HELPER =
  'var __name = (target, value) => target.name === value || target.name === "" || !("prototype" in target) ? target : __defProp(target, "name", { value, configurable: true });';
/** An anonymous class handed to the helper, which would leave it nameless. */
const ANONYMOUS_CLASS = /__name\(class\b/;

/** Replaces the helper in the one chunk that defines it; fails the build if esbuild emits it otherwise. */
function cheapNames(files) {
  let replaced = 0;
  for (const file of files) {
    const path = join(ROOT, file);
    const text = readFileSync(path, 'utf8');
    if (ANONYMOUS_CLASS.test(text)) throw new Error(`bundle: ${file} names an anonymous class through __name; CHEAP_NAME_HELPER would leave it nameless`);
    if (!text.includes(NAME_HELPER)) continue;
    writeFileSync(path, text.replace(NAME_HELPER, CHEAP_NAME_HELPER));
    replaced++;
  }
  if (replaced === 0) throw new Error(`bundle: esbuild's keepNames helper changed; update NAME_HELPER in ${relative(ROOT, import.meta.filename)}`);
}
