import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { hostConfigFor, type HostConfig } from '../../functions/config/host-config.ts';
import { renderPdconf } from '../../functions/config/uci.ts';
import type { StoredChute } from '../../functions/core/device/index.ts';
import { useTempDir } from '../../test/support/temp-dir.ts';
import { writeScript } from '../../test/support/tool-scripts.ts';
import { commandApplier, directoryStore, pdconfEngine, type ApplyCommands } from './pdconf.ts';

const temp = useTempDir('chutebox-pdconf-');

/** A configuration with a WAN, two LAN ports and a radio. */
function config(): HostConfig {
  return { ...hostConfigFor(['eth0', 'eth1', 'eth2'], [{ id: 'pci-wifi-0', channel: 6, hwmode: '11g', htmode: 'HT20' }]) };
}

/**
 * An engine over a fresh folder whose apply commands are one script that logs `<file> <path>` per
 * run; `source` can be changed between runs, `clock` moved.
 */
async function setup(options: { commands?: (script: string) => ApplyCommands; timeoutMs?: number } = {}) {
  const dir = await temp.folder(`run-${Math.random().toString(16).slice(2)}`);
  const pdconfDir = path.join(dir, 'pdconf');
  const log = path.join(dir, 'applied.log');
  const script = await writeScript(dir, 'apply', `echo "$1 $2" >> ${log}`);
  const commands = options.commands?.(script) ?? {
    network: [script, 'network', '{file}'],
    wireless: [script, 'wireless', '{file}'],
    dhcp: [script, 'dhcp', '{file}'],
    firewall: [script, 'firewall', '{file}'],
  };
  const state = { config: config(), chutes: [] as StoredChute[], time: Date.UTC(2026, 10, 21, 12) };
  const make = () =>
    pdconfEngine({
      store: directoryStore(pdconfDir),
      apply: commandApplier({ dir: pdconfDir, applyCommands: commands, ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }) }),
      now: () => state.time,
      source: async () => ({ config: structuredClone(state.config), chutes: state.chutes }),
    });
  const applied = async () =>
    (await readFile(log, 'utf8').catch(() => ''))
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((line) => line.split(' ')[0]);
  return { dir, pdconfDir, state, engine: make(), make, applied, script };
}

describe('pdconf engine with apply commands', () => {
  it("renders the four files into <state>/pdconf with mode 600 and runs each file's command with its path", async () => {
    const { pdconfDir, engine, dir, state } = await setup();
    const report = await engine.update();
    expect(report.failures).toEqual([]);
    expect(report.applied.map((entry) => entry.file)).toEqual(['network', 'wireless', 'dhcp', 'firewall']);
    const rendered = renderPdconf(state.config, []);
    for (const file of ['network', 'wireless', 'dhcp', 'firewall'] as const) {
      expect(await readFile(path.join(pdconfDir, file), 'utf8')).toBe(rendered[file].text);
      expect((await stat(path.join(pdconfDir, file))).mode & 0o777).toBe(0o600);
    }
    expect((await stat(pdconfDir)).mode & 0o777).toBe(0o700);
    expect(await readFile(path.join(dir, 'applied.log'), 'utf8')).toContain(`network ${path.join(pdconfDir, 'network')}\n`);
    expect(report.sections[0]).toEqual({
      type: 'interface',
      name: 'loopback',
      comment: `network: applied with ${path.join(dir, 'apply')} network ${path.join(pdconfDir, 'network')}`,
      success: true,
      age: 0,
    });
  });

  it('runs the apply commands of the files that changed only', async () => {
    const { engine, state, applied } = await setup();
    await engine.update();
    expect((await engine.update()).applied).toEqual([]);
    state.config.wifi![0]!.channel = 11;
    expect((await engine.update()).applied.map((entry) => entry.file)).toEqual(['wireless']);
    state.config.lan.dhcp!.limit = 50;
    state.chutes = [
      {
        name: 'lab',
        record: {},
        config: { net: { v: { type: 'vlan', intfName: 'eth1', vlan_id: 7 } } },
        cache: { networks: { v: { hostInterface: 'br-lan.7' } } },
      },
    ];
    expect((await engine.update()).applied.map((entry) => entry.file)).toEqual(['dhcp', 'firewall']);
    expect(await applied()).toEqual(['network', 'wireless', 'dhcp', 'firewall', 'wireless', 'dhcp', 'firewall']);
  });

  it('applies every file on reload, changed or not', async () => {
    const { engine, applied } = await setup();
    await engine.update();
    expect((await engine.reload()).applied.map((entry) => entry.file)).toEqual(['network', 'wireless', 'dhcp', 'firewall']);
    expect(await applied()).toHaveLength(8);
  });

  it('reports a file without an apply command honestly, and runs nothing for it', async () => {
    const { engine, applied } = await setup({ commands: (script) => ({ network: [script, 'network'] }) });
    const report = await engine.reload();
    expect(report.failures).toEqual([]);
    expect(report.applied.map((entry) => [entry.file, entry.success])).toEqual([
      ['network', true],
      ['wireless', false],
      ['dhcp', false],
      ['firewall', false],
    ]);
    expect(report.sections.find((section) => section.type === 'wifi-device')).toEqual({
      type: 'wifi-device',
      name: 'pci_wifi_0',
      comment: 'wireless: rendered; no apply command is configured',
      success: false,
      age: 0,
    });
    expect(await applied()).toEqual(['network']);
  });

  it('reports a failing apply command with its exit code and last line, and tries that file again at the next update', async () => {
    const { engine, dir } = await setup({
      commands: (script) => ({ network: [script, 'network'], wireless: [path.join(path.dirname(script), 'failing')] }),
    });
    await writeScript(dir, 'failing', 'echo "reloading"; echo "radio phy0 is busy" >&2; exit 3');
    const report = await engine.update();
    const failure = `wireless: apply failed: ${path.join(dir, 'failing')} exited with code 3: radio phy0 is busy`;
    expect(report.failures).toEqual([failure]);
    expect(report.sections.filter((section) => section.comment === failure).map((section) => section.success)).toEqual([false]);
    expect((await engine.update()).applied.map((entry) => entry.file)).toEqual(['wireless']);
  });

  it('reports a command that is missing or runs too long as failed', async () => {
    const { engine, dir } = await setup({
      commands: (script) => ({ network: [path.join(path.dirname(script), 'no-such-command')], dhcp: [path.join(path.dirname(script), 'slow')] }),
      timeoutMs: 200,
    });
    await writeScript(dir, 'slow', 'sleep 5');
    const report = await engine.update();
    expect(report.failures).toEqual([
      `network: apply failed: the network apply command is not installed at ${path.join(dir, 'no-such-command')}; set its path with the setting pdconf_apply_network`,
      'dhcp: apply failed: the dhcp apply command did not finish within 0.2 s and was stopped',
    ]);
  });

  it("keeps the status across a restart, with each section's age in runs since its file was applied, as ParaDrop counts it", async () => {
    const { make, state, applied } = await setup();
    await make().update();
    expect((await make().status())[0]).toMatchObject({ type: 'interface', name: 'loopback', success: true, age: 0 });
    state.config.wifi![0]!.channel = 11;
    await make().update();
    await make().update();
    const sections = await make().status();
    expect(sections.find((section) => section.type === 'interface')).toMatchObject({ name: 'loopback', age: 2 });
    expect(sections.find((section) => section.type === 'wifi-device')).toMatchObject({ age: 1 });
    await make().reload();
    expect((await make().status()).map((section) => section.age)).toEqual(sections.map(() => 0));
    expect(await applied()).toHaveLength(4 + 1 + 4);
  });

  it('applies a changed file at the next start when the runtime died while applying it', async () => {
    const { make, state, applied, pdconfDir } = await setup();
    await make().update();
    state.config.wifi![0]!.channel = 11;
    // The runtime dies while the wireless apply command runs: the new file is written, its status not.
    const dying = pdconfEngine({
      store: directoryStore(pdconfDir),
      apply: async (file) => {
        if (file === 'wireless') throw new Error('the runtime died');
        return { success: true, comment: 'applied' };
      },
      now: () => state.time,
      source: async () => ({ config: structuredClone(state.config), chutes: state.chutes }),
    });
    await expect(dying.update()).rejects.toThrow('the runtime died');
    expect((await make().update()).applied.map((entry) => entry.file)).toEqual(['wireless']);
    expect(await applied()).toEqual(['network', 'wireless', 'dhcp', 'firewall', 'wireless']);
  });

  it('renders without applying when the status is read before anything was rendered, and applies at the next update', async () => {
    const { engine, applied } = await setup();
    const sections = await engine.status();
    expect(sections.every((section) => !section.success && section.age === 0)).toBe(true);
    expect(await applied()).toEqual([]);
    expect((await engine.update()).applied.map((entry) => entry.file)).toEqual(['network', 'wireless', 'dhcp', 'firewall']);
  });

  it('forgets everything on clear', async () => {
    const { engine, pdconfDir } = await setup();
    await engine.update();
    await engine.clear();
    expect(await directoryStore(pdconfDir).read('status.json')).toBeNull();
    expect(await directoryStore(pdconfDir).read('network')).toBeNull();
  });
});
