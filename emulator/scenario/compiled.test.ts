import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { useTempDir } from '../../test/support/temp-dir.ts';
import { compiledScenario, compileScenario, compileScenarios, readScenarioTree } from './compiled.ts';
import { readScenarioDocuments } from './documents.ts';
import { ScenarioError } from '../../runtime/scenario/format.ts';
import { BUILT_IN_SCENARIOS, builtInScenarios } from './names.ts';

const temp = useTempDir('chutebox-scenario-compiled-');

/** What the build wrote (`npm test` builds before vitest runs). */
const DIST_SCENARIOS = new URL('../../dist/scenarios/', import.meta.url);

const UNAME = 'uname: { sysname: Linux, release: 6.1.0, version: "#1", machine: x86_64 }\n';

/** A folder of built-in scenarios under the test's temp dir: scenario name → its files. */
async function builtIns(name: string, scenarios: Record<string, Record<string, string>>): Promise<URL> {
  const root = await temp.folder(name);
  for (const [scenario, files] of Object.entries(scenarios)) {
    for (const [file, text] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(root, scenario, file)), { recursive: true });
      await writeFile(path.join(root, scenario, file), text);
    }
  }
  return pathToFileURL(`${root}/`);
}

describe('the compiled built-in scenarios', () => {
  it('dist/scenarios holds every built-in scenario, each exactly what parsing its YAML and reading its files gives (the two cannot drift)', async () => {
    const names = await builtInScenarios();
    expect(names).toEqual(expect.arrayContaining(['default', 'gl-ar150']));
    expect((await readdir(DIST_SCENARIOS)).sort()).toEqual(names.map((name) => `${name}.json`));
    for (const name of names) {
      const dir = path.join(fileURLToPath(BUILT_IN_SCENARIOS), name);
      const parsed = await readScenarioDocuments(dir);
      expect(await compiledScenario(name, DIST_SCENARIOS), name).toStrictEqual({
        format: 'chutebox-scenario/1',
        name,
        ...parsed,
        files: await readScenarioTree(dir),
      });
    }
  });

  it('hold the chutes, engine and device of the default scenario', async () => {
    const documents = (await compiledScenario('default', DIST_SCENARIOS))!;
    expect(Object.keys(documents.chutes)).toEqual(['hello-world', 'hotspot']);
    expect(documents.chutes.hotspot!.record).toMatchObject({ name: 'hotspot', version: '2.1' });
    expect(documents.engine!.containers.map((container) => container.Names)).toEqual([['/hotspot'], ['/hello-world']]);
    expect(documents.device.uname.machine).toBe('x86_64');
    expect(documents.device.programs).toEqual(['ip', 'iw', 'hostapd', 'hostapd_cli', 'dnsmasq', 'nsenter', 'nft']);
    expect(documents.hostConfig).toBeNull();
  });

  it('are none when running from source: the scenario folder is parsed instead', async () => {
    expect(await compiledScenario('default', pathToFileURL(`${await temp.folder('no-compiled')}/`))).toBeNull();
  });
});

describe('compiling a scenario folder (chutebox scenario compile)', () => {
  it('holds its documents and every raw file, folder and link, named after the folder', async () => {
    const compiled = await compileScenario(fileURLToPath(new URL('default/', BUILT_IN_SCENARIOS)));
    expect(compiled.name).toBe('default');
    expect(compiled.files['/etc/os-release']).toEqual({ link: '../usr/lib/os-release' });
    expect(compiled.files['/proc/uptime']).toEqual({ file: await readFile(fileURLToPath(new URL('default/proc/uptime', BUILT_IN_SCENARIOS)), 'utf8') });
    expect(compiled.files['/chutes/hotspot/networks/guest']).toMatchObject({ dir: expect.arrayContaining(['iw-station-dump.txt']) });
    expect(Object.keys(compiled.chutes)).toEqual(['hello-world', 'hotspot']);
  });
});

describe('compiling the built-in scenarios (the build)', () => {
  it('writes each as <name>.json, which compiledScenario reads back', async () => {
    const builtIn = await builtIns('good', {
      lab: { 'device.yaml': `description: a lab box\n${UNAME}`, 'chutes/web/chute.yaml': 'name: web\nstate: running\n' },
    });
    const out = path.join(await temp.folder('good-out'), 'scenarios');
    expect(await compileScenarios(out, builtIn)).toEqual(['lab']);
    expect(await compiledScenario('lab', pathToFileURL(`${out}/`))).toStrictEqual({
      format: 'chutebox-scenario/1',
      name: 'lab',
      device: { description: 'a lab box', uname: { sysname: 'Linux', release: '6.1.0', version: '#1', machine: 'x86_64' } },
      engine: null,
      chutes: { web: { record: { name: 'web', state: 'running' }, config: {}, cache: {} } },
      hostConfig: null,
      living: null,
      files: {
        '/': { dir: ['chutes', 'device.yaml'] },
        '/chutes': { dir: ['web'] },
        '/chutes/web': { dir: ['chute.yaml'] },
        '/chutes/web/chute.yaml': { file: 'name: web\nstate: running\n' },
        '/device.yaml': { file: `description: a lab box\n${UNAME}` },
      },
    });
  });

  it('refuses a file that is not a compiled scenario of this layout (an older build’s documents alone)', async () => {
    const out = await temp.folder('old-layout');
    await writeFile(path.join(out, 'lab.json'), JSON.stringify({ device: { uname: {} }, engine: null, chutes: {}, hostConfig: null }));
    await expect(compiledScenario('lab', pathToFileURL(`${out}/`))).rejects.toThrow(/has format undefined, not chutebox-scenario\/1/);
  });

  it('fails for a bad built-in scenario, naming the file and field', async () => {
    const builtIn = await builtIns('bad', { lab: { 'device.yaml': 'uname: { sysname: Linux, release: "6.1", version: "#1" }\n' } });
    const error = await compileScenarios(path.join(await temp.folder('bad-out'), 'scenarios'), builtIn).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ScenarioError);
    expect((error as Error).message).toContain(path.join(fileURLToPath(builtIn), 'lab', 'device.yaml'));
    expect((error as Error).message).toContain('uname.machine');
  });

  it('fails for a value that JSON cannot hold, rather than changing it', async () => {
    const builtIn = await builtIns('nan', { lab: { 'device.yaml': UNAME, 'chutes/web/chute.yaml': 'name: web\nweight: .nan\n' } });
    await expect(compileScenarios(path.join(await temp.folder('nan-out'), 'scenarios'), builtIn)).rejects.toThrow(
      'the built-in scenario lab holds a value that JSON cannot hold',
    );
  });
});
