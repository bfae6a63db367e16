import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChutebox, type Started } from './support/spawn.ts';

/** The size budgets, in bytes of minified output. They are the spec: do not loosen them here. */
const INFO_FUNCTION_LIMIT = 16 * 1024;
const RUNTIME_LIMIT = 80 * 1024;
/** The portal's page, script and style sheet together (dist/portal/, unpacked). */
const PORTAL_LIMIT = 12 * 1024;

const DIST = fileURLToPath(new URL('../dist/', import.meta.url));
const SCENARIOS = fileURLToPath(new URL('../fixtures/scenarios/', import.meta.url));
const FUNCTIONS = fileURLToPath(new URL('../functions/', import.meta.url));

interface Manifest {
  functions: { name: string; file: string; method: string; path: string; aliases?: string[]; bytes: number; gzipBytes: number }[];
  entries: { name: string; file: string; bytes: number; gzipBytes: number }[];
  portal: Record<string, { bytes: number; gzipBytes: number }>;
}

let manifest: Manifest;

beforeAll(async () => {
  manifest = JSON.parse(await readFile(path.join(DIST, 'manifest.json'), 'utf8')) as Manifest;
});

describe('dist/manifest.json', () => {
  it('lists every function bundle with its route and sizes', async () => {
    const built = (await readdir(path.join(DIST, 'functions'))).filter((file) => file.endsWith('.mjs'));
    expect(manifest.functions.map((fn) => `${fn.name}.mjs`).sort()).toEqual(built.sort());
    for (const fn of manifest.functions) {
      expect(fn.name).toMatch(/^[a-z]+-[a-z0-9-]+-(get|put|post|delete)$/);
      expect(fn.name.endsWith(`-${fn.method.toLowerCase()}`)).toBe(true);
      expect(['GET', 'PUT', 'POST', 'DELETE']).toContain(fn.method);
      expect(fn.path).toMatch(/^\/api\/v1\//);
      expect(fn.bytes).toBeGreaterThan(0);
      expect(fn.gzipBytes).toBeGreaterThan(0);
      expect(fn.bytes).toBe((await readFile(path.join(DIST, fn.file))).length);
    }
  });

  it('names each function bundle after its module: functions/<area>/<resource>.<method>.ts is <area>-<resource>-<method>', async () => {
    const fromFiles: string[] = [];
    for (const area of await readdir(FUNCTIONS, { withFileTypes: true })) {
      if (!area.isDirectory()) continue;
      for (const file of await readdir(path.join(FUNCTIONS, area.name))) {
        const endpoint = /^([a-z0-9-]+)\.(get|put|post|delete)\.ts$/.exec(file);
        if (endpoint !== null) fromFiles.push(`${area.name}-${endpoint[1]}-${endpoint[2]}`);
      }
    }
    expect(manifest.functions.map((fn) => fn.name).sort()).toEqual(fromFiles.sort());
  });

  it("puts every function but the OpenAPI document's into dist/all-functions.mjs, emulate's one bundle, on the same routes", async () => {
    const together = (manifest as Manifest & { together?: { file: string; dir: string } }).together;
    expect(together).toMatchObject({ file: 'all-functions.mjs', dir: 'functions' });
    const { functions } = (await import(pathToFileURL(path.join(DIST, together!.file)).href)) as {
      functions: Record<string, { route: { method: string; path: string } }>;
    };
    const expected = manifest.functions.filter((fn) => fn.name !== 'meta-openapi-get');
    expect(Object.keys(functions).sort()).toEqual(expected.map((fn) => fn.name).sort());
    for (const fn of expected) expect([functions[fn.name]!.route.method, functions[fn.name]!.route.path]).toEqual([fn.method, fn.path]);
  });

  it('mounts /api/v1/config/new_config as an alias of new-config, not as a bundle of its own', () => {
    const answering = manifest.functions.filter((fn) => [fn.path, ...(fn.aliases ?? [])].includes('/api/v1/config/new_config'));
    expect(answering.map((fn) => [fn.name, fn.path, fn.aliases])).toEqual([
      ['config-new-config-get', '/api/v1/config/new-config', ['/api/v1/config/new_config']],
    ]);
  });

  it('has the five info endpoints', () => {
    expect(
      manifest.functions
        .filter((fn) => fn.name.startsWith('info-'))
        .map((fn) => fn.path)
        .sort(),
    ).toEqual(['environment', 'features', 'hardware', 'software', 'telemetry'].map((name) => `/api/v1/info/${name}`));
  });

  it(`keeps every info-* bundle within ${INFO_FUNCTION_LIMIT} bytes`, () => {
    const over = manifest.functions.filter((fn) => fn.name.startsWith('info-') && fn.bytes > INFO_FUNCTION_LIMIT);
    expect(over.map((fn) => `${fn.file}: ${fn.bytes} bytes`)).toEqual([]);
  });

  it(`keeps the runtime entry within ${RUNTIME_LIMIT} bytes`, () => {
    const runtime = manifest.entries.find((entry) => entry.name === 'runtime');
    expect(runtime).toBeDefined();
    expect(runtime!.bytes).toBeLessThanOrEqual(RUNTIME_LIMIT);
  });

  it(`keeps the portal (its page, script and style sheet) within ${PORTAL_LIMIT} bytes, as written in dist/portal/`, async () => {
    const files = Object.keys(manifest.portal);
    expect(files.map((file) => file.replace(/\.[0-9a-f]{12}\./, '.<hash>.')).sort()).toEqual([
      'assets/portal.<hash>.css',
      'assets/portal.<hash>.js',
      'index.html',
    ]);
    for (const file of files) expect((await readFile(path.join(DIST, 'portal', `${file}.gz`))).length).toBe(manifest.portal[file]!.gzipBytes);
    expect(Object.values(manifest.portal).reduce((sum, file) => sum + file.bytes, 0)).toBeLessThanOrEqual(PORTAL_LIMIT);
  });
});

describe('bundle imports', () => {
  /**
   * Every module a bundle loads: its static and dynamic `import`s (as esbuild reads them) and the
   * built-ins its bundled CommonJS code asks for through esbuild's `require` shim.
   */
  async function importsOf(file: string): Promise<string[]> {
    const found = new Set<string>();
    await esbuild.build({
      entryPoints: [file],
      bundle: true,
      write: false,
      platform: 'node',
      format: 'esm',
      logLevel: 'silent',
      plugins: [
        {
          name: 'collect-imports',
          setup(build) {
            build.onResolve({ filter: /.*/ }, (args) => {
              if (args.kind === 'entry-point') return undefined;
              found.add(args.path);
              return { path: args.path, external: true };
            });
          },
        },
      ],
    });
    const text = await readFile(file, 'utf8');
    const shims = ['require', ...[...text.matchAll(/\bvar ([\w$]+)=\([\w$]+=>typeof require<"u"\?require/g)].map((m) => m[1]!)];
    // A call named in an error message's text (the AWS SDK's `[require("@aws-sdk/signature-v4-crt");]`) is no import.
    for (const shim of shims) {
      for (const call of text.matchAll(new RegExp(`(?<![\\w$.[])${shim.replace(/\$/g, '\\$')}\\("([^"]+)"\\)`, 'g'))) found.add(call[1]!);
    }
    return [...found];
  }

  /** A Node built-in (with or without `node:`, as CommonJS dependencies ask for them) or a file beside the bundle. */
  const allowed = (specifier: string) =>
    specifier.startsWith('node:') || specifier.startsWith('./') || specifier.startsWith('../') || builtinModules.includes(specifier);

  it('imports no package: only Node built-ins and files of dist/, and the msw entry the project’s msw (a peer dependency)', async () => {
    const files = [...manifest.functions.map((fn) => path.join(DIST, fn.file)), ...manifest.entries.map((entry) => path.join(DIST, entry.file))];
    const offending: string[] = [];
    for (const file of files) {
      const peer = path.basename(file) === 'lib-msw.mjs' ? (specifier: string) => specifier === 'msw' : () => false;
      for (const specifier of await importsOf(file))
        if (!allowed(specifier) && !peer(specifier)) offending.push(`${path.relative(DIST, file)} imports ${specifier}`);
    }
    expect(offending).toEqual([]);
  });

  it('finds a package import when there is one (the check can fail)', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'chutebox-imports-'));
    try {
      // What esbuild writes for a package left external: an import, and a require through its shim.
      const file = path.join(dir, 'bad.mjs');
      await writeFile(
        file,
        "import { createRequire as __cjsRequire } from 'node:module'; const require = __cjsRequire(import.meta.url);\n" +
          'import "dockerode";\n' +
          'var q=(e=>typeof require<"u"?require:e)(function(e){throw Error("no require")});\n' +
          'var a=q("fs"),b=q("ssh2"),c=require("./engine.mjs");\n',
      );
      expect((await importsOf(file)).filter((specifier) => !allowed(specifier)).sort()).toEqual(['dockerode', 'ssh2']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  // The fleet's AWS CDK app (dist/aws/fleet.mjs) imports aws-cdk-lib from the checkout; no bundle of the package may carry any of it.
  it('keeps aws-cdk-lib out of every function bundle and entry, the library entries included: only the fleet’s CDK app has it', async () => {
    const mentions = async (file: string) => /aws-cdk-lib|aws_lambda/.test(await readFile(file, 'utf8'));
    const files = [...manifest.functions, ...manifest.entries, { file: 'lib-msw.browser.mjs' }].map(({ file }) => path.join(DIST, file));
    const carrying: string[] = [];
    for (const file of files) if (await mentions(file)) carrying.push(path.relative(DIST, file));
    expect(carrying).toEqual([]);
    expect(manifest.entries.map((entry) => entry.file)).toEqual(expect.arrayContaining(['lib-emulator.mjs', 'lib-msw.mjs']));
    const app = path.join(DIST, 'aws', 'fleet.mjs');
    expect(await mentions(app)).toBe(true);
    expect(await importsOf(app)).toContain('aws-cdk-lib');
  });
});

describe('a copy of dist/ outside the repository, without node_modules', () => {
  let copy: string;
  let server: Started | undefined;

  beforeAll(async () => {
    copy = await mkdtemp(path.join(os.tmpdir(), 'chutebox-dist-copy-'));
    // The package layout: the bundles, and the built-in scenarios beside them.
    await cp(DIST, path.join(copy, 'dist'), { recursive: true });
    await cp(SCENARIOS, path.join(copy, 'fixtures', 'scenarios'), { recursive: true, verbatimSymlinks: true });
  });

  afterAll(async () => {
    await server?.stop();
    await rm(copy, { recursive: true, force: true });
  });

  it('serves: chutebox emulate from the copy answers GET /api/v1/info/hardware', async () => {
    server = await startChutebox(
      ['emulate', '--port', '0', '--no-auth'],
      { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      path.join(copy, 'dist', 'chutebox.mjs'),
    );
    const res = await fetch(`${server.url}/api/v1/info/hardware`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ vendor: 'PC Engines', board: 'apu2 1.0', cpu: 'x86_64' });
  });
});
