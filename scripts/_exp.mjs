import * as esbuild from 'esbuild';
import { existsSync } from 'node:fs';
const pkg = (p) => p.split('/').slice(0, p.startsWith('@') ? 2 : 1).join('/');
const keep = [/^better-sqlite3/, /^sharp/, /^@jsquash/, /^swagger-ui-dist/, /^@nestjs\/swagger/, /^mongodb/, /^mongoose/, /^@nestjs\/mongoose/, /^@kurrent/, /^@nats-io/, /^@node-saml/, /^passport/, /^undici/, /^@zxcvbn-ts/, /^@nestjs\/(microservices|websockets|platform-express)/, /^class-transformer\/storage/, /^@fastify\/static/, /^pino/, /^thread-stream/];
const ext = { name: 'ext', setup(b) { b.onResolve({ filter: /^[^./#]/ }, (a) => (a.path.startsWith('node:') || keep.some((r) => r.test(a.path)) || !existsSync('/work/h-speed/node_modules/' + pkg(a.path)) ? { path: a.path, external: true } : undefined)); } };
const r = await esbuild.build({
  absWorkingDir: '/work/h-speed',
  entryPoints: { main: 'dist/apps/server/src/main.js', cli: 'dist/apps/server/src/cli.js' },
  outdir: 'dist/apps/server/bundle-exp', chunkNames: '[name]-[hash]', bundle: true, splitting: true, format: 'esm', platform: 'node', target: 'node24',
  keepNames: true, plugins: [ext], logLevel: 'error', metafile: true,
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
});
const ins = Object.keys(r.metafile.inputs); console.log('inputs', ins.length, 'nm', ins.filter((i) => i.includes('node_modules')).length);
const out = r.metafile.outputs; const cliReach = new Set(); const seen = new Set();
const visit = (o) => { if (seen.has(o)) return; seen.add(o); for (const i of Object.keys(out[o].inputs)) cliReach.add(i); for (const im of out[o].imports) if (!im.external) visit(im.path); };
visit('dist/apps/server/bundle-exp/cli.js');
const c = new Map(); for (const i of cliReach) if (i.includes('node_modules/')) { const p = i.split('node_modules/').pop(); const k = p.split('/').slice(0, p.startsWith('@') ? 2 : 1).join('/'); c.set(k, (c.get(k) ?? 0) + 1); }
console.log([...c].sort((a, b) => b[1] - a[1]).slice(0, 25).map(([k, v]) => `${v} ${k}`).join('\n'));
