import { spawnSync } from 'node:child_process';
import { copyFile, cp, mkdir, readdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { useTempDir } from './support/temp-dir.ts';

/*
 * The package as a controller project gets it: `npm pack` of a copy of this checkout (its own build,
 * so that this run's dist/ is not rebuilt under the other tests), the tarball installed with msw in a
 * fresh project with msw and vitest, and test/consumer/controller.consumer.ts run there with the project's
 * vitest and type-checked with tsc against the package's declarations. Needs npm, and the packages in
 * npm's cache (`npm ci` put them there) or its registry.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const temp = useTempDir('chutebox-package-');

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

describe('the chutebox package in a controller project', () => {
  it('installs from its tarball and serves startEmulator and chuteboxHandlers to the project’s vitest suite, with types', async () => {
    const source = await temp.folder('checkout');
    await checkoutCopy(source);
    const packed = await temp.folder('packed');
    run('npm', ['pack', '--silent', '--pack-destination', packed], source);
    const [tarball] = (await readdir(packed)).filter((name) => name.endsWith('.tgz'));
    expect(tarball).toMatch(/^chutebox-.*\.tgz$/);

    const project = await temp.folder('controller');
    await writeFile(path.join(project, 'package.json'), JSON.stringify({ name: 'a-controller', private: true, type: 'module' }));
    const tools = ['msw', 'vitest'].map((name) => `${name}@${versionOf(name)}`);
    run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', path.join(packed, tarball!), ...tools], project);
    await mkdir(path.join(project, 'test'));
    await copyFile(path.join(ROOT, 'test/consumer/controller.consumer.ts'), path.join(project, 'test/controller.test.ts'));
    await writeFile(
      path.join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, skipLibCheck: true, types: [] },
        include: ['test'],
      }),
    );

    const tests = run(process.execPath, [path.join(project, 'node_modules/vitest/vitest.mjs'), 'run', '--reporter', 'verbose'], project);
    expect(tests).toMatch(/Tests\s+5 passed/);
    run(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', project], project);
    // Packing builds (declarations too) and installing takes a while, longer on a busy machine.
  }, 300_000);
});
