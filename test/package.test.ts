import { spawnSync } from 'node:child_process';
import { copyFile, cp, mkdir, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerUnavailableReason, startDockerd, type Dockerd } from './support/dockerd.ts';
import { CLEAN_ENV, serveArgs, startChutebox } from './support/spawn.ts';
import { useTempDir } from './support/temp-dir.ts';

/*
 * The package as a controller project gets it: `npm pack` of a copy of this checkout (its own build,
 * so that this run's dist/ is not rebuilt under the other tests), the tarball installed alone in a
 * fresh project (what `npm install chutebox` brings, and that the emulator and `chutebox serve` run
 * from it), then with msw and vitest in another, where test/consumer/controller.consumer.ts runs with
 * the project's vitest and is type-checked with tsc against the package's declarations. Needs npm, and
 * the packages in npm's cache (`npm ci` put them there) or its registry; `serve` against a container
 * engine needs what test/engine.test.ts needs (skipped without it, unless CHUTEBOX_REQUIRE_DOCKER).
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const temp = useTempDir('chutebox-package-');
const noEngine = dockerUnavailableReason();
const engineSkipped = noEngine !== null && !process.env.CHUTEBOX_REQUIRE_DOCKER;
if (engineSkipped) console.warn(`test/package.test.ts (serve against an engine) skipped: ${noEngine}; set CHUTEBOX_REQUIRE_DOCKER=1 to make this a failure`);

/** Runs a program from an argument array; its output when it fails. */
function run(program: string, args: string[], cwd: string, timeoutMs = 180_000): string {
  const env = { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' };
  const result = spawnSync(program, args, { cwd, env, encoding: 'utf8', timeout: timeoutMs, maxBuffer: 32 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`${program} ${args.join(' ')} failed (${result.status ?? result.signal}):\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

/** A copy of the checkout's files (tracked and new, not ignored), with its node_modules linked. */
async function checkoutCopy(dir: string): Promise<void> {
  const files = run('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], ROOT).split('\0').filter(Boolean);
  for (const file of files) {
    await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    // A scenario's sysfs links are symbolic links: copied as links.
    await cp(path.join(ROOT, file), path.join(dir, file), { verbatimSymlinks: true }).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error; // deleted in the working tree
    });
  }
  await symlink(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
}

/** The version of a package this checkout has, for the controller project to install the same. */
const versionOf = (name: string): string => JSON.parse(run(process.execPath, ['-p', `JSON.stringify(require('${name}/package.json').version)`], ROOT));

/** A fresh project with `packages` installed (a tarball among them) as `npm install` installs them. */
async function projectWith(name: string, packages: string[]): Promise<string> {
  const project = await temp.folder(name);
  await writeFile(path.join(project, 'package.json'), JSON.stringify({ name: `a-${name}`, private: true, type: 'module' }));
  run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', ...packages], project);
  return project;
}

/** Every package folder under a project's node_modules (scoped ones as `@scope/name`, nested ones too), by path from node_modules. */
async function installedPackages(modules: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(modules).catch(() => [] as string[])) {
    if (entry.startsWith('.')) continue;
    const names = entry.startsWith('@') ? (await readdir(path.join(modules, entry))).map((name) => `${entry}/${name}`) : [entry];
    for (const name of names) {
      found.push(name);
      for (const nested of await installedPackages(path.join(modules, name, 'node_modules'))) found.push(`${name}/node_modules/${nested}`);
    }
  }
  return found.sort();
}

/** The scripts npm runs when it installs a package: its own install scripts, and `node-gyp rebuild` for a `binding.gyp`. */
async function installScripts(folder: string): Promise<string[]> {
  const { scripts = {} } = JSON.parse(await readFile(path.join(folder, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
  const named = ['preinstall', 'install', 'postinstall', 'prepare'].filter((script) => scripts[script] !== undefined);
  const gyp = await stat(path.join(folder, 'binding.gyp')).then(
    () => ['binding.gyp'],
    () => [],
  );
  return [...named, ...gyp];
}

describe('the chutebox package in a controller project', () => {
  let tarball: string;
  /** A project with nothing but the package installed. */
  let bare: string;

  beforeAll(async () => {
    const source = await temp.folder('checkout');
    await checkoutCopy(source);
    const packed = await temp.folder('packed');
    run('npm', ['pack', '--silent', '--pack-destination', packed], source);
    const [name] = (await readdir(packed)).filter((file) => file.endsWith('.tgz'));
    expect(name).toMatch(/^chutebox-.*\.tgz$/);
    tarball = path.join(packed, name!);
    bare = await projectWith('bare', [tarball]);
    // Packing builds (declarations too) and installing takes a while, longer on a busy machine.
  }, 300_000);

  it('installs light: chutebox with hono and zod (which its declarations name), no install script, none of dockerode, ssh2 or cpu-features', async () => {
    const modules = path.join(bare, 'node_modules');
    expect(await installedPackages(modules)).toEqual(['chutebox', 'hono', 'zod']);
    for (const name of await installedPackages(modules)) expect(await installScripts(path.join(modules, name)), name).toEqual([]);
  });

  it('ships the bundles without the fleet’s AWS CDK app (dist/aws/, which imports aws-cdk-lib from a checkout) and its Lambda modules (with the AWS SDK)', () => {
    const files = run('tar', ['-tzf', tarball], bare).split('\n').filter(Boolean);
    expect(files).toContain('package/dist/functions/info-hardware-get.mjs');
    expect(files.filter((file) => file.startsWith('package/dist/aws/') || file.startsWith('package/dist/fleet-'))).toEqual([]);
  });

  it('runs startEmulator from the installed package, in a project that has nothing else', () => {
    const script = [
      "import { startEmulator } from 'chutebox/emulator';",
      "const router = await startEmulator({ scenario: 'default', auth: false });",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the script's own template literal
      'const answer = await fetch(`${router.url}/api/v1/chutes/hotspot/networks/guest/ssid`);',
      'console.log(JSON.stringify({ status: answer.status, body: await answer.json() }));',
      'await router.stop();',
    ].join('\n');
    const out = run(process.execPath, ['--input-type=module', '-e', script], bare, 60_000);
    expect(JSON.parse(out.trim().split('\n').at(-1)!)).toEqual({ status: 200, body: { ssid: 'Café Guest', bssid: '04:f0:21:34:5a:9e' } });
  });

  describe.skipIf(engineSkipped)(`chutebox serve from the installed package${engineSkipped ? ` (skipped: ${noEngine})` : ''}`, () => {
    let engine: Dockerd | undefined;
    afterAll(() => engine?.stop());

    it('reaches a container engine over its Unix socket (its client is bundled, and needs neither ssh2 nor cpu-features)', async () => {
      engine = await startDockerd();
      const stateDir = await temp.folder('serve-state');
      const bin = path.join(bare, 'node_modules', '.bin', 'chutebox');
      const server = await startChutebox(serveArgs(stateDir, engine.socket), CLEAN_ENV, { command: bin });
      try {
        // No password is set: a local client is served without credentials. `docker` is listed once the engine answered.
        const features = await fetch(`${server.url}/api/v1/info/features`);
        expect(await features.json()).toContain('docker');
        expect(await (await fetch(`${server.url}/api/v1/chutes`)).json()).toEqual([]);
      } finally {
        await server.stop();
      }
      expect(server.output()).not.toMatch(/cannot be loaded|ssh2|cpu-features/);
    }, 120_000);
  });

  it('installs with msw and vitest and serves startEmulator and chuteboxHandlers to the project’s vitest suite, with types for every OpenAPI operation', async () => {
    const project = await projectWith('controller', [tarball, ...['msw', 'vitest'].map((name) => `${name}@${versionOf(name)}`)]);
    await mkdir(path.join(project, 'test'));
    await copyFile(path.join(ROOT, 'test/consumer/controller.consumer.ts'), path.join(project, 'test/controller.test.ts'));
    // Every operation of the package's OpenAPI document (its `chutebox/openapi.json` export) is a key of `Endpoints`: tsc fails on one that is not.
    const document = JSON.parse(await readFile(createRequire(path.join(project, 'package.json')).resolve('chutebox/openapi.json'), 'utf8')) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const operations = Object.entries(document.paths).flatMap(([route, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${route.replace(/\{(\w+)\}/g, ':$1')}`),
    );
    expect(operations).toContain('POST /api/v1/auth/local');
    await writeFile(
      path.join(project, 'test/operations.ts'),
      `import type { EndpointKey } from 'chutebox/types';\nexport const operations: EndpointKey[] = ${JSON.stringify(operations, null, 2)};\n`,
    );
    await writeFile(
      path.join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, skipLibCheck: true, types: [] },
        include: ['test'],
      }),
    );

    const tests = run(process.execPath, [path.join(project, 'node_modules/vitest/vitest.mjs'), 'run', '--reporter', 'verbose'], project);
    // Every test of the consumer suite ran and passed, however many it holds.
    const count = (await readFile(path.join(ROOT, 'test/consumer/controller.consumer.ts'), 'utf8')).match(/^\s*it\(/gm)?.length ?? 0;
    expect(tests).toMatch(new RegExp(`Tests\\s+${count} passed`));
    run(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', project], project);
  }, 300_000);
});
