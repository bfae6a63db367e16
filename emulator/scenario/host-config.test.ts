import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { hostConfigFor, type HostConfig } from '../../functions/config/host-config.ts';
import { useTempDir } from '../../test/support/temp-dir.ts';
import { memoryHostConfig, readScenarioHostConfig } from './host-config.ts';
import { ScenarioError } from '../../runtime/scenario/format.ts';

const temp = useTempDir('chutebox-scenario-hostconfig-');

const GENERATED = hostConfigFor(['eth0', 'eth1'], []);
const NO_CHUTES = { chuteNames: async () => [], chute: async () => null };
const options = { chutes: NO_CHUTES, generate: async () => structuredClone(GENERATED) };

const VALID = `# the scenario's host configuration
firewall: { defaults: { input: ACCEPT, output: ACCEPT, forward: REJECT } }
lan: { interfaces: [eth1], proto: static, ipaddr: 192.168.8.1, netmask: 255.255.255.0 }
wan: { interface: eth0, proto: dhcp }
`;

async function scenario(hostconfig?: string): Promise<string> {
  const dir = await temp.folder(`scenario-${Math.random().toString(16).slice(2)}`);
  if (hostconfig !== undefined) {
    await mkdir(path.join(dir, 'config'));
    await writeFile(path.join(dir, 'config', 'hostconfig.yaml'), hostconfig);
  }
  return dir;
}

const note = async () => {};

/** A scenario's host configuration as the emulator makes it: what the folder stores, in memory. */
const scenarioHostConfig = async (dir: string, opts: typeof options) => memoryHostConfig({ ...opts, stored: await readScenarioHostConfig(dir) });

describe('scenarioHostConfig', () => {
  it('starts from config/hostconfig.yaml as written', async () => {
    const hostConfig = await scenarioHostConfig(await scenario(VALID), options);
    expect(await hostConfig.read()).toBe(VALID);
    expect((await hostConfig.current()).lan.ipaddr).toBe('192.168.8.1');
  });

  it('starts with none stored, the generated configuration in effect, when the scenario has no host configuration', async () => {
    const hostConfig = await scenarioHostConfig(await scenario(), options);
    expect(await hostConfig.read()).toBeNull();
    expect(await hostConfig.current()).toEqual(GENERATED);
  });

  it('fails with a ScenarioError naming the file and each bad field', async () => {
    const dir = await scenario(VALID.replace('forward: REJECT', 'forward: ALLOW').replace('192.168.8.1', '192.168.8.0'));
    const error = await scenarioHostConfig(dir, options).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ScenarioError);
    const message = (error as Error).message;
    expect(message).toContain(`${path.join(dir, 'config', 'hostconfig.yaml')} is not a valid host configuration`);
    expect(message).toContain('firewall.defaults.forward');
    expect(message).toContain('lan.ipaddr');
  });

  it('fails with a ScenarioError for a file that is not YAML', async () => {
    const dir = await scenario('lan: [1\n');
    await expect(scenarioHostConfig(dir, options)).rejects.toThrow(
      new RegExp(`^${path.join(dir, 'config', 'hostconfig.yaml').replaceAll('.', '\\.')} is not valid YAML`),
    );
  });

  it('keeps what a change does in memory and never writes the scenario', async () => {
    const dir = await scenario(VALID);
    const hostConfig = await scenarioHostConfig(dir, options);
    const config: HostConfig = { ...structuredClone(GENERATED), lan: { ...GENERATED.lan, ipaddr: '10.0.0.1' } };
    await hostConfig.perform({ action: 'update-hostconfig', config }, note);
    expect((await hostConfig.current()).lan.ipaddr).toBe('10.0.0.1');
    expect(hostConfig.documents.get('hostconfig.previous.yaml')).toBe(VALID);
    expect(hostConfig.rendered.get('network')).toContain("option ipaddr '10.0.0.1'");
    expect(await readFile(path.join(dir, 'config', 'hostconfig.yaml'), 'utf8')).toBe(VALID);
  });
});

describe('memoryHostConfig', () => {
  it('rolls back in memory when an apply fails, as the runtime does, and says when applying the previous one fails too', async () => {
    let failing = false;
    const hostConfig = memoryHostConfig({
      stored: VALID,
      apply: async () => (failing ? { success: false, comment: 'apply failed: emulated' } : { success: true, comment: 'applied' }),
    });
    await hostConfig.reloadPdconf();
    failing = true;
    const config: HostConfig = { ...structuredClone(GENERATED), lan: { ...GENERATED.lan, ipaddr: '10.0.0.1' } };
    await expect(hostConfig.perform({ action: 'update-hostconfig', config }, note)).rejects.toThrow(
      'applying the host configuration failed (network: apply failed: emulated; dhcp: apply failed: emulated); the previous configuration was restored, but applying it failed too',
    );
    expect(await hostConfig.read()).toBe(VALID);
    expect(hostConfig.documents.has('hostconfig.previous.yaml')).toBe(false);
  });

  it('resets to none stored', async () => {
    const hostConfig = memoryHostConfig({ stored: VALID });
    await hostConfig.reset();
    expect(await hostConfig.read()).toBeNull();
    expect(hostConfig.rendered.get('network')).toContain("option ipaddr '192.168.1.1'");
  });
});

describe('memoryHostConfig perform, as an emulated update-hostconfig change runs it', () => {
  it('applies a configuration and notes what was done, for the change record', async () => {
    const hostConfig = memoryHostConfig({ stored: VALID });
    const config = { ...structuredClone(GENERATED), lan: { ...GENERATED.lan, ipaddr: '10.0.0.1' } };
    const notes: string[] = [];
    await hostConfig.perform({ action: 'update-hostconfig', config }, async (text) => void notes.push(text));
    expect(notes).toEqual([
      'stored the host configuration; the previous one is kept',
      'network: applied (emulated)',
      'wireless: applied (emulated)',
      'dhcp: applied (emulated)',
      'firewall: applied (emulated)',
    ]);
    expect((await hostConfig.current()).lan.ipaddr).toBe('10.0.0.1');
  });
});
