// Builds chutebox: one standalone bundle per endpoint, the entry points, and dist/manifest.json.
// Usage: node esbuild.config.mjs [--quiet] [--types]
// --types (and `npm pack`, which runs it as `prepack`) also writes the package's type declarations to dist/types/.
import * as esbuild from 'esbuild';
import { copyFile, readdir, readFile, rm, writeFile, mkdir, chmod } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { builtinModules } from 'node:module';
import { writeDocsPage } from './runtime/http/docs-page/build.mjs';
import { writePortalPage } from './runtime/http/portal-page/build.mjs';

const root = path.dirname(fileURLToPath(import.meta.url));
const dist = path.join(root, 'dist');
const quiet = process.argv.includes('--quiet');
const withTypes = process.argv.includes('--types') || process.env.npm_command === 'pack' || process.env.npm_command === 'publish';
const pkg = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8'));

/** Size budgets in bytes, minified (the portal: its page, script and style sheet together). Enforced by test/bundles.test.ts, printed here. */
const BUDGETS = { infoFunction: 16 * 1024, runtime: 80 * 1024, portal: 12 * 1024 };

/** Entry points besides the functions: source → dist/<name>.mjs. */
const ENTRIES = {
  chutebox: 'emulator/cli.ts',
  runtime: 'runtime/main.ts',
  passwd: 'runtime/passwd.ts',
  // The Docker client and the chute work on the host (lifecycle, chute networks, repair at start), loaded on first use.
  'chute-lifecycle': 'runtime/chutes/chute-lifecycle.entry.ts',
  // The device configuration (host configuration, pdconf, provisioning, accounts), loaded on first use.
  'device-config': 'runtime/device-config/index.ts',
  // The host's audio server through pactl, loaded on the first audio request.
  'host-audio': 'runtime/device/host-audio.ts',
  // The host's factory reset, loaded on the first one.
  'host-reset': 'runtime/device/host-reset.ts',
  // serve's change runner and its log's files (opened, written, kept within their bound), loaded when serve first opens the log.
  'change-log': 'runtime/changes/change-log.entry.ts',
  // The help text of a command's options, loaded by `serve --help` (the other commands carry it).
  'options-help': 'runtime/options-help.ts',
  emulator: 'emulator/main.ts',
  record: 'emulator/record.ts',
  // `chutebox scenario compile DIR`: a scenario folder as one JSON document (emulator/scenario/compiled.ts).
  'scenario-command': 'emulator/scenario/command.ts',
  'scenario-device': 'emulator/lambda-device.ts',
  // A fleet's device on Lambda, its state in DynamoDB (the AWS SDK's client inside), loaded when CHUTEBOX_FLEET_TABLE is set.
  'fleet-device': 'emulator/fleet/lambda/fleet-device.ts',
  // A fleet's outbound work on Lambda (provisioning, telemetry), the handler each shard's schedule invokes.
  'fleet-outbound': 'emulator/fleet/lambda/fleet-outbound.ts',
  // Reading request bodies (and the login's), loaded on the first request with a body.
  'request-body': 'runtime/http/request-body.ts',
  // The websocket side of the HTTP layer (ws), loaded on the first upgrade request.
  websocket: 'runtime/http/websocket.ts',
  // GET /metrics (prom-client's registry and the gathering of functions/metrics/), loaded on the first scrape.
  metrics: 'runtime/http/metrics.ts',
  // The request counters GET /metrics exposes, loaded when serve starts.
  'request-counts': 'runtime/http/request-counts.ts',
  // A chute's log, streamed (GET /api/v1/chutes/<chute>/logs), loaded on its first request.
  'chute-logs': 'runtime/http/chute-logs.ts',
  // The daemon's log (JSON lines on stdout, the ring of recent ones), loaded at start by serve.
  'daemon-log': 'runtime/log/daemon-log.ts',
  // GET /api/v1/logs, the daemon's log from its ring, loaded on the first request.
  'daemon-logs': 'runtime/http/daemon-logs.ts',
  // The events stream (GET /api/v1/events, Server-Sent Events), loaded on its first request.
  'event-stream': 'runtime/http/event-stream.ts',
  // The API tokens (JWT), loaded on the first login or Bearer token.
  tokens: 'runtime/auth/tokens.ts',
  // Password hashing (scrypt), loaded on the first password checked against an account's, and by `chutebox passwd`.
  passwords: 'runtime/auth/passwords.ts',
  // The login's answer, loaded on the first login.
  login: 'runtime/http/login.ts',
  // ParaDrop's password change and clear, loaded on the first one.
  'password-change': 'runtime/http/password-change.ts',
  // The answer to a CORS preflight, loaded on the first one.
  preflight: 'runtime/http/preflight.ts',
  // The check of a request served without credentials (a loopback Host, no other origin), loaded on the first one.
  'local-request': 'runtime/http/local-request.ts',
  // The problem answers to requests Node cannot read (a head over 16 KiB: 431), loaded on the first one.
  'client-error': 'runtime/http/client-error.ts',
  // The reverse proxy of the chutes' web pages (serve only), loaded on the first request to /chutes/<chute>/.
  'chute-proxy': 'runtime/http/chute-proxy.ts',
  // ParaDrop's /snapd/*: the request read and handed to the device (runtime/http/snapd.ts), loaded on the first one.
  snapd: 'runtime/http/snapd.ts',
  // snapd over its Unix socket (serve's Device), loaded on the first request for snapd.
  'snapd-socket': 'runtime/snapd/socket.ts',
  // The API reference page (GET /docs), loaded on its first request; it serves the files of dist/docs/.
  docs: 'runtime/http/docs.ts',
  // The portal (GET /), loaded on its first request; it serves the files of dist/portal/.
  portal: 'runtime/http/portal.ts',
  // The host side of the chute networks (iw, hostapd_cli, the lease files), loaded on the first network or station request.
  'network-host': 'runtime/network/host.ts',
  // hostapd_cli -a for hostapd's events, loaded on the first ATTACH.
  'hostapd-events': 'runtime/network/hostapd-events.entry.ts',
  // serve's sources of device events (hostapd, the lease files, the engine's stream), loaded when the host starts them.
  'event-sources': 'runtime/events/sources/event-sources.entry.ts',
  // The package's library entries (package.json `exports`): `chutebox/emulator` and `chutebox/msw`.
  // The OpenAPI validator of `emulate --validate` (ajv), loaded only with validation on.
  validator: 'emulator/openapi-validator.ts',
  'lib-emulator': 'emulator/start.ts',
  'lib-msw': 'emulator/msw.ts',
};

/** Modules a library entry takes from the project that installs chutebox, not from its bundle: msw's handlers must be that project's msw. */
const LIBRARY_EXTERNALS = { 'lib-msw': ['msw'] };

/** The sources whose declarations `--types` writes: the library entries, which `exports` points at (and every endpoint, for `Endpoints`). */
const TYPE_SOURCES = ['emulator/start.ts', 'emulator/msw.ts', 'emulator/msw-browser.ts', 'functions/core/endpoint-types.ts', 'runtime/http/openapi.ts'];

const shared = {
  bundle: true,
  minify: !process.env.CHUTEBOX_NO_MINIFY,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  legalComments: 'none',
  define: { CHUTEBOX_VERSION: JSON.stringify(pkg.version) },
  logLevel: 'warning',
};

/** A dynamic import of another entry's source becomes an import of that entry's bundle. */
function linkEntries(self) {
  const targets = new Map(Object.entries(ENTRIES).map(([name, source]) => [path.join(root, source), `./${name}.mjs`]));
  return {
    name: 'link-entries',
    setup(build) {
      build.onResolve({ filter: /^\./ }, (args) => {
        if (args.kind !== 'dynamic-import') return undefined;
        const target = targets.get(path.resolve(args.resolveDir, args.path));
        if (target === undefined || target === `./${self}.mjs`) return undefined;
        return { path: target, external: true };
      });
    },
  };
}

/**
 * The engine client (dockerode) reaches for modules that chutebox never uses, as it only talks to a
 * local UNIX socket: ssh2 and native addons (`*.node`), which esbuild cannot bundle, and gRPC (only
 * for BuildKit image builds, and large). Each becomes a stub that loads fine and throws when used.
 */
function stubUnused() {
  const stubs = {
    ssh2: 'the ssh transport is not bundled',
    '@grpc/grpc-js': 'BuildKit sessions (gRPC) are not bundled',
    '@grpc/proto-loader': 'BuildKit sessions (gRPC) are not bundled',
    // debug's optional colour support, required inside a try; a stub keeps the bundle free of packages.
    'supports-color': 'terminal colours of debug output are not bundled',
  };
  const escapeRegExp = (name) => name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  return {
    name: 'stub-unused',
    setup(build) {
      const filter = new RegExp(`^(${Object.keys(stubs).map(escapeRegExp).join('|')})$|\\.node$`);
      build.onResolve({ filter }, (args) => ({ path: args.path, namespace: 'stub' }));
      build.onLoad({ filter: /.*/, namespace: 'stub' }, (args) => {
        const message = stubs[args.path] ?? `the native module ${path.basename(args.path)} is not bundled`;
        // Any export is a function that throws when called or constructed, so requiring works.
        const contents = `function fail() { throw new Error(${JSON.stringify(message)}); }
module.exports = new Proxy(fail, { get: (_target, key) => (key === '__esModule' ? false : fail) });`;
        return { contents, loader: 'js' };
      });
    },
  };
}

/**
 * ws speeds up masking and UTF-8 checks with two optional native addons, which it requires inside a
 * try and does without when that throws. Each becomes a module that throws when loaded, so the bundle
 * asks for no package and ws uses its JavaScript code.
 */
function stubOptionalAddons() {
  return {
    name: 'stub-optional-addons',
    setup(build) {
      build.onResolve({ filter: /^(bufferutil|utf-8-validate)$/ }, (args) => ({ path: args.path, namespace: 'optional-addon' }));
      build.onLoad({ filter: /.*/, namespace: 'optional-addon' }, (args) => ({
        contents: `throw new Error(${JSON.stringify(`the optional addon ${args.path} is not bundled`)});`,
        loader: 'js',
      }));
    },
  };
}

/**
 * ajv keeps, for the standalone code it can generate, the source of its runtime helpers as strings
 * (`'require("ajv/dist/runtime/equal").default'`), which chutebox never generates. A space after
 * `require` in those strings keeps them from reading as imports of packages (test/bundles.test.ts).
 */
function ajvCodeStrings() {
  return {
    name: 'ajv-code-strings',
    setup(build) {
      build.onLoad({ filter: /[\\/]node_modules[\\/]ajv(-formats)?[\\/]dist[\\/].*\.js$/ }, async (args) => ({
        contents: (await readFile(args.path, 'utf8')).replace(/(['`])require\("/g, '$1require ("'),
        loader: 'js',
      }));
    },
  };
}

/**
 * A function bundle takes yaml's ES module build (the package's `default` export condition) rather
 * than its CommonJS one (`node`): function bundles have no `require` shim for the Node built-ins the
 * CommonJS build asks for, and esbuild drops what a handler does not use (a handler that only
 * stringifies carries only what stringify needs). Every other bundle takes it as well: the ES
 * module build loads sooner.
 */
function yamlModules() {
  return {
    name: 'yaml-modules',
    setup(build) {
      build.onResolve({ filter: /^yaml$/ }, async () => {
        const dir = path.join(root, 'node_modules', 'yaml');
        const { exports } = JSON.parse(await readFile(path.join(dir, 'package.json'), 'utf8'));
        return { path: path.join(dir, exports['.'].default) };
      });
    },
  };
}

/** The methods an endpoint's file may name (functions/core/route.ts `Method`), lower case. */
const METHODS = ['get', 'put', 'post', 'delete'];

/** An endpoint module's file name: `<resource>.<method>.ts`, the resource in kebab case. */
const ENDPOINT_FILE = new RegExp(`^([a-z0-9]+(?:-[a-z0-9]+)*)\\.(${METHODS.join('|')})\\.ts$`);

/**
 * Endpoint modules: functions/<area>/<resource>.<method>.ts, each exporting `route` (docs/layout.md).
 * The bundle's name comes from the path: functions/networks/ssid.put.ts → `networks-ssid-put`
 * (dist/functions/networks-ssid-put.mjs). Any other file is a helper; one exporting `route` fails the
 * build, as does an endpoint file without `route`.
 */
async function findFunctions() {
  const found = [];
  for (const area of (await readdir(path.join(root, 'functions'), { withFileTypes: true })).filter((d) => d.isDirectory())) {
    const dir = path.join(root, 'functions', area.name);
    for (const file of (await readdir(dir)).sort()) {
      if (!file.endsWith('.ts') || file.endsWith('.test.ts')) continue;
      const where = path.relative(root, path.join(dir, file));
      const endpoint = ENDPOINT_FILE.exec(file);
      const exportsRoute = /^export const route\b/m.test(await readFile(path.join(dir, file), 'utf8'));
      if (endpoint === null && exportsRoute) throw new Error(`${where} exports route: name an endpoint <resource>.<method>.ts (docs/layout.md)`);
      if (endpoint === null) continue;
      if (!exportsRoute) throw new Error(`${where} is named as an endpoint but exports no route`);
      const [, resource, method] = endpoint;
      found.push({ name: `${area.name}-${resource}-${method}`, file: path.join(dir, file), where, resource, method: method.toUpperCase() });
    }
  }
  return found;
}

/**
 * Whether a route answers what its file says: the file's method, and a path that names the resource
 * (letters and digits compared, case aside: `factory-reset` in `/api/v1/config/factoryReset`).
 */
function checkRoute(fn, route) {
  const letters = (text) => text.toLowerCase().replace(/[^a-z0-9]/g, '');
  if (route.method !== fn.method) throw new Error(`${fn.where}: route.method is ${route.method}, but the file says ${fn.method}`);
  if (!letters(route.path).includes(letters(fn.resource))) throw new Error(`${fn.where}: route.path ${route.path} does not name the resource ${fn.resource}`);
}

function functionEntry(file) {
  const core = (m) => JSON.stringify(path.join(root, 'functions/core', m));
  return [
    `import { route, handle } from ${JSON.stringify(file)};`,
    `import { bundleInvoke } from ${core('bundle.ts')};`,
    `import { lambdaHandler } from ${core('lambda.ts')};`,
    `export { route };`,
    `export const invoke = bundleInvoke(route, handle);`,
    `export const handler = lambdaHandler(route, invoke, import.meta.url);`,
  ].join('\n');
}

/** The bundle of every function, for emulate (emulator/all-functions.ts, the manifest's `together`); a device imports one bundle a function. */
const TOGETHER_FILE = 'all-functions.mjs';

/**
 * dist/all-functions.mjs: every endpoint's route and invoke in one module (`functions`, by bundle
 * name), so that emulate, which runs them all, compiles and optimizes the code they share once. The
 * OpenAPI document's function stays in its own bundle, which carries the document.
 */
function buildTogether(functions) {
  const core = (m) => JSON.stringify(path.join(root, 'functions/core', m));
  const contents = [
    `import { bundleInvoke } from ${core('bundle.ts')};`,
    ...functions.map((fn, i) => `import { route as route${i}, handle as handle${i} } from ${JSON.stringify(fn.file)};`),
    'export const functions = {',
    ...functions.map((fn, i) => `  ${JSON.stringify(fn.name)}: { route: route${i}, invoke: bundleInvoke(route${i}, handle${i}) },`),
    '};',
  ].join('\n');
  return esbuild.build({
    ...shared,
    stdin: { contents, resolveDir: root, sourcefile: 'all-functions.entry.js', loader: 'js' },
    outfile: path.join(dist, TOGETHER_FILE),
    plugins: [yamlModules()],
  });
}

/** The function whose bundle carries the OpenAPI document (functions/meta/openapi.get.ts), built once the document is. */
const OPENAPI_FUNCTION = 'meta-openapi-get';

/**
 * The API's OpenAPI 3.1 document, written to dist/openapi.json and returned: every endpoint module
 * (its route, request and response schemas) with the login and the websockets, the schemas named by
 * the areas' `schemas.ts` exports, and as examples what each GET answers on the built-in `default`
 * scenario, as recorded (runtime/http/openapi.ts, functions/core/openapi/). The generator runs from
 * a bundle of its own, removed when done.
 */
async function generateOpenApi(functions) {
  const tool = path.join(dist, '.openapi.mjs');
  const source = (file) => JSON.stringify(path.join(root, file));
  // The helpers of the endpoint areas that export schemas (`export const <Name>Schema`), the areas' schemas.ts first: their names win.
  const schemaFiles = [];
  for (const area of [...new Set(functions.map((fn) => path.dirname(fn.where)))].sort()) {
    for (const file of (await readdir(path.join(root, area))).sort()) {
      if (!file.endsWith('.ts') || file.endsWith('.test.ts') || ENDPOINT_FILE.test(file)) continue;
      if (/^export const \w+Schema\b/m.test(await readFile(path.join(root, area, file), 'utf8'))) schemaFiles.push(path.join(area, file));
    }
  }
  schemaFiles.sort((a, b) => (path.basename(b) === 'schemas.ts') - (path.basename(a) === 'schemas.ts'));
  const contents = [
    `import { apiDocument } from ${source('runtime/http/openapi.ts')};`,
    `import { deviceTime } from ${source('functions/info/device-time.ts')};`,
    `import { loadScenario } from ${source('emulator/scenario/device.ts')};`,
    ...functions.map((fn, i) => `import * as f${i} from ${JSON.stringify(fn.file)};`),
    ...schemaFiles.map((file, i) => `import * as s${i} from ${source(file)};`),
    `const endpoints = [${functions.map((fn, i) => `{ name: ${JSON.stringify(fn.name)}, ...f${i} }`).join(', ')}];`,
    `const schemaModules = [${schemaFiles.map((_, i) => `s${i}`).join(', ')}];`,
    `export async function generate() {`,
    // Asked at the time the scenario was recorded: the same examples at every build.
    `  let now = Date.now();`,
    `  const { device } = await loadScenario('default', undefined, { asRecorded: true, now: () => now });`,
    `  now = (await deviceTime(device)) ?? now;`,
    `  return apiDocument(endpoints, schemaModules, device);`,
    `}`,
  ].join('\n');
  await esbuild.build({
    ...shared,
    minify: false,
    stdin: { contents, resolveDir: root, sourcefile: 'openapi.entry.js', loader: 'js' },
    outfile: tool,
    plugins: [yamlModules()],
    banner: { js: "import { createRequire as __cjsRequire } from 'node:module'; const require = __cjsRequire(import.meta.url);" },
  });
  try {
    const { generate } = await import(pathToFileURL(tool).href);
    const document = await generate();
    await writeFile(path.join(dist, 'openapi.json'), `${JSON.stringify(document, null, 2)}\n`);
    return document;
  } finally {
    await rm(tool, { force: true });
  }
}

/**
 * The built-in scenarios' documents (device.yaml, engine recordings, chutes, config/hostconfig.yaml),
 * parsed and checked now and written as dist/scenarios/<name>.json, which `chutebox emulate` reads
 * instead of parsing YAML at start (emulator/scenario/compiled.ts). A bad built-in scenario fails the
 * build. The compiler runs from a bundle of its own, removed when done.
 */
async function compileScenarios() {
  const tool = path.join(dist, '.compile-scenarios.mjs');
  await esbuild.build({ ...shared, entryPoints: [path.join(root, 'emulator/scenario/compiled.ts')], outfile: tool, plugins: [yamlModules()] });
  try {
    const { compileScenarios: compile } = await import(pathToFileURL(tool).href);
    await compile(path.join(dist, 'scenarios'));
  } finally {
    await rm(tool, { force: true });
  }
}

/**
 * The browser build of `chutebox/msw` (package.json `exports`, condition `browser`):
 * dist/lib-msw.browser.mjs, emulator/msw-browser.ts for a page's bundler. A browser cannot import
 * dist/functions/, so every endpoint module is bundled in (emulator/endpoint-modules.ts becomes a
 * static import of each) with the OpenAPI document; msw stays the page's own (a peer, as for
 * lib-msw.mjs); the HTTP layer's Node-only parts loaded on use (websockets, docs page, chute pages, metrics)
 * become 501 answers (emulator/msw-browser-unserved.ts). A Node built-in that any module imports but
 * the bundle never uses is stubbed, and the build fails if one is left in the output. Not in the
 * manifest's entries (it is no Node bundle); the size table shows it.
 */
async function buildBrowserMsw(functions, openApi) {
  const endpoints = [
    ...functions.map((fn, i) => `import * as f${i} from ${JSON.stringify(fn.file)};`),
    `export async function endpointModules() { return [${functions.map((_, i) => `f${i}`).join(', ')}]; }`,
  ].join('\n');
  const unserved = path.join(root, 'emulator/msw-browser-unserved.ts');
  // local-request.ts checks only requests that came over a socket or carry credentials: the browser
  // build has neither (it has no auth policy).
  const nodeOnly = new Set(
    ['websocket.ts', 'docs.ts', 'portal.ts', 'chute-proxy.ts', 'local-request.ts', 'metrics.ts'].map((file) => path.join(root, 'runtime/http', file)),
  );
  const outfile = path.join(dist, 'lib-msw.browser.mjs');
  const { metafile } = await esbuild.build({
    ...shared,
    platform: 'browser',
    target: 'es2022',
    define: { ...shared.define, CHUTEBOX_OPENAPI: JSON.stringify(openApi) },
    entryPoints: [path.join(root, 'emulator/msw-browser.ts')],
    outfile,
    external: ['msw'],
    metafile: true,
    plugins: [
      yamlModules(),
      {
        name: 'browser-parts',
        setup(build) {
          build.onResolve({ filter: /endpoint-modules\.ts$/ }, () => ({ path: 'endpoint-modules', namespace: 'chutebox-endpoints' }));
          build.onLoad({ filter: /.*/, namespace: 'chutebox-endpoints' }, () => ({ contents: endpoints, resolveDir: root, loader: 'js' }));
          build.onResolve({ filter: /^\./ }, (args) => (nodeOnly.has(path.resolve(args.resolveDir, args.path)) ? { path: unserved } : undefined));
          build.onResolve({ filter: /^node:|^[a-z_]+$/ }, (args) =>
            args.path.startsWith('node:') || builtinModules.includes(args.path)
              ? { path: args.path, namespace: 'node-builtin', sideEffects: false }
              : undefined,
          );
          // Any export is a function that throws when called: dropped with the code that would call it.
          build.onLoad({ filter: /.*/, namespace: 'node-builtin' }, (args) => ({
            contents: `function fail() { throw new Error(${JSON.stringify(`${args.path} is not in a browser`)}); }
module.exports = new Proxy(fail, { get: (_target, key) => (key === '__esModule' ? false : fail) });`,
            loader: 'js',
          }));
        },
      },
    ],
  });
  const [output] = Object.values(metafile.outputs);
  const builtins = Object.entries(output.inputs).filter(([input, { bytesInOutput }]) => input.startsWith('node-builtin:') && bytesInOutput > 0);
  if (builtins.length > 0) throw new Error(`lib-msw.browser.mjs needs Node built-ins: ${builtins.map(([input]) => input).join(', ')}`);
}

/**
 * The AWS CDK app of a fleet on Lambda (emulator/fleet/aws/app.ts): dist/aws/fleet.mjs, which
 * `npx cdk deploy --app 'node dist/aws/fleet.mjs'` runs from the checkout, importing its aws-cdk-lib
 * (docs/bundles.md#deploying-a-fleet-on-aws). Not in the manifest, the functions' code or the package
 * (package.json `files`).
 */
function buildFleetApp() {
  return esbuild.build({
    ...shared,
    entryPoints: [path.join(root, 'emulator/fleet/aws/app.ts')],
    outfile: path.join(dist, 'aws', 'fleet.mjs'),
    packages: 'external',
  });
}

await rm(dist, { recursive: true, force: true });
await mkdir(path.join(dist, 'functions'), { recursive: true });

const functions = await findFunctions();
/** One function's bundle; `define` adds to the shared constants (the OpenAPI document for OPENAPI_FUNCTION). */
const buildFunction = (fn, define = {}) =>
  esbuild.build({
    ...shared,
    define: { ...shared.define, ...define },
    stdin: { contents: functionEntry(fn.file), resolveDir: root, sourcefile: `${fn.name}.entry.js`, loader: 'js' },
    outfile: path.join(dist, 'functions', `${fn.name}.mjs`),
    plugins: [yamlModules()],
  });
const [openApi] = await Promise.all([
  generateOpenApi(functions),
  buildFleetApp(),
  ...functions.filter((fn) => fn.name !== OPENAPI_FUNCTION).map((fn) => buildFunction(fn)),
  ...Object.entries(ENTRIES).map(([name, source]) =>
    esbuild.build({
      ...shared,
      entryPoints: [path.join(root, source)],
      outfile: path.join(dist, `${name}.mjs`),
      plugins: [
        linkEntries(name),
        // Without yaml's CommonJS wrapper, serve's device configuration loads sooner at start.
        yamlModules(),
        ...(name === 'validator' ? [ajvCodeStrings()] : []),
        ...(name === 'chute-lifecycle' ? [stubUnused()] : name === 'websocket' ? [stubOptionalAddons()] : []),
      ],
      external: LIBRARY_EXTERNALS[name] ?? [],
      // CommonJS dependencies (dockerode, yaml) call require() for Node built-ins.
      banner: { js: "import { createRequire as __cjsRequire } from 'node:module'; const require = __cjsRequire(import.meta.url);" },
    }),
  ),
]);
// The document goes into its function's bundle, which answers it without reading a file (Lambda too).
const openApiFunction = functions.find((fn) => fn.name === OPENAPI_FUNCTION);
if (openApiFunction === undefined) throw new Error(`no function ${OPENAPI_FUNCTION}: functions/meta/openapi.get.ts is missing`);
await buildFunction(openApiFunction, { CHUTEBOX_OPENAPI: JSON.stringify(openApi) });
await buildTogether(functions.filter((fn) => fn.name !== OPENAPI_FUNCTION));
// The docs page (dist/docs/): Redoc's standalone bundle and a page with the document inlined (docs/decisions/0032-the-docs-page.md).
await writeDocsPage({ root, dist, document: openApi });
// The portal (dist/portal/): the page at GET /, its script and style sheet (docs/decisions/0063-the-portal.md).
const portal = await writePortalPage({ dist, version: pkg.version });
// The browser build of chutebox/msw, every endpoint module and the document in it.
await buildBrowserMsw(functions, openApi);
await chmod(path.join(dist, 'chutebox.mjs'), 0o755);
await compileScenarios();
// The `chutebox` command: a shell launcher that bounds Node's heap, then runs chutebox.mjs (package.json `bin`).
await copyFile(path.join(root, 'runtime/chutebox.sh'), path.join(dist, 'chutebox'));
await chmod(path.join(dist, 'chutebox'), 0o755);

/**
 * The type declarations of the library entries, the endpoints and everything they name, as
 * dist/types/<source>.d.ts (tsc, with tsconfig.json's settings; seconds, so only for a package), and
 * dist/types/endpoints.d.ts: `Endpoints`, the `EndpointTypes` of every operation of the OpenAPI
 * document by its route key (`'GET /api/v1/chutes'`), for `chutebox/types`: each endpoint module's,
 * and each of the HTTP layer's (`HTTP_OPERATIONS` of runtime/http/openapi.ts, by operationId).
 */
async function writeTypes(functions, manifest, openApi) {
  const { spawnSync } = await import('node:child_process');
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const config = JSON.parse(await readFile(path.join(root, 'tsconfig.json'), 'utf8')).compilerOptions;
  const flags = Object.entries(config).flatMap(([key, value]) => {
    if (key === 'noEmit') return [];
    return Array.isArray(value) ? [`--${key}`, value.join(',')] : typeof value === 'boolean' ? (value ? [`--${key}`] : []) : [`--${key}`, String(value)];
  });
  const sources = [...TYPE_SOURCES, ...functions.map((fn) => fn.where)];
  const args = [tsc, ...flags, '--declaration', '--emitDeclarationOnly', '--rootDir', root, '--outDir', path.join(dist, 'types'), ...sources];
  const result = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`tsc could not write the type declarations (exit ${result.status})`);
  const keys = [];
  for (const [i, fn] of functions.entries()) {
    const { method, path: routePath, aliases = [] } = manifest.functions.find((entry) => entry.name === fn.name);
    for (const key of [routePath, ...aliases].map((p) => `${method} ${p}`)) keys.push([key, `typeof f${i}`]);
  }
  const known = new Set(keys.map(([key]) => key));
  for (const [documentPath, item] of Object.entries(openApi.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const key = `${method.toUpperCase()} ${documentPath.replace(/\{(\w+)\}/g, ':$1')}`;
      if (!known.has(key)) keys.push([key, `(typeof HTTP_OPERATIONS)[${JSON.stringify(operation.operationId)}]`]);
    }
  }
  const text = [
    '// Written by the build (esbuild.config.mjs): every endpoint of the API, by its route key.',
    "import type { EndpointTypes } from './functions/core/endpoint-types.ts';",
    "import type { HTTP_OPERATIONS } from './runtime/http/openapi.ts';",
    ...functions.map((fn, i) => `import type * as f${i} from './${fn.where.replaceAll(path.sep, '/')}';`),
    "export type { EndpointTypes } from './functions/core/endpoint-types.ts';",
    '/** What each operation of the API takes (`params`, `body`) and answers (`response`), from its schemas, by `<METHOD> <path>`. */',
    'export interface Endpoints {',
    ...keys.map(([key, source]) => `  ${JSON.stringify(key)}: EndpointTypes<${source}>;`),
    '}',
    '/** A route key of the API, e.g. `GET /api/v1/chutes`. */',
    'export type EndpointKey = keyof Endpoints;',
    '',
  ].join('\n');
  await writeFile(path.join(dist, 'types', 'endpoints.d.ts'), text);
}

/** The portal's files together: bytes and gzipped bytes. */
function portalTotal(files) {
  const all = Object.values(files);
  return [all.reduce((sum, file) => sum + file.bytes, 0), all.reduce((sum, file) => sum + file.gzipBytes, 0)];
}

async function sizes(file) {
  const bytes = await readFile(file);
  return { bytes: bytes.length, gzipBytes: gzipSync(bytes).length };
}

const manifest = {
  version: pkg.version,
  budgets: BUDGETS,
  functions: [],
  together: { file: TOGETHER_FILE, dir: 'functions', ...(await sizes(path.join(dist, TOGETHER_FILE))) },
  entries: [],
  portal,
};
for (const fn of functions) {
  const file = path.join(dist, 'functions', `${fn.name}.mjs`);
  const { route } = await import(pathToFileURL(file).href);
  checkRoute(fn, route);
  // The runtime mounts every route from here and imports a bundle on its first request (runtime/http/mount-functions.ts).
  const { method, path: routePath, aliases, summary, body, upload, public: open } = route;
  const entry = { name: fn.name, file: `functions/${fn.name}.mjs`, method, path: routePath, aliases, summary, body, upload, public: open };
  manifest.functions.push({ ...entry, ...(await sizes(file)) });
}
for (const name of Object.keys(ENTRIES)) {
  manifest.entries.push({ name, file: `${name}.mjs`, ...(await sizes(path.join(dist, `${name}.mjs`))) });
}
await writeFile(path.join(dist, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
if (withTypes) await writeTypes(functions, manifest, openApi);

if (!quiet) {
  const kb = (n) => `${(n / 1024).toFixed(1)} KB`.padStart(9);
  const rows = [
    ...manifest.functions.map((f) => [f.file, f.bytes, f.gzipBytes, f.name.startsWith('info-') ? BUDGETS.infoFunction : undefined]),
    ...manifest.entries.map((e) => [e.file, e.bytes, e.gzipBytes, e.name === 'runtime' ? BUDGETS.runtime : undefined]),
    ['lib-msw.browser.mjs', ...Object.values(await sizes(path.join(dist, 'lib-msw.browser.mjs'))), undefined],
    ...Object.entries(portal).map(([file, size]) => [`portal/${file}`, size.bytes, size.gzipBytes, undefined]),
    ['portal/ (page, script, style)', ...portalTotal(portal), BUDGETS.portal],
  ];
  const width = Math.max(...rows.map(([file]) => file.length));
  console.log(`${'bundle'.padEnd(width)} ${'minified'.padStart(9)} ${'gzip'.padStart(9)} ${'budget'.padStart(9)}`);
  for (const [file, bytes, gzip, budget] of rows) {
    const verdict = budget === undefined ? '' : `${kb(budget)} ${bytes <= budget ? 'ok' : 'OVER'}`;
    console.log(`${file.padEnd(width)} ${kb(bytes)} ${kb(gzip)} ${verdict}`);
  }
}
