import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { hostConfigFor, parseStoredHostConfig, type HostConfig } from '../../functions/config/host-config.ts';
import type { ChangeRecord, Device, DeviceEventBody, StoredChute } from '../../functions/core/device/index.ts';
import { useTempDir } from '../../test/support/temp-dir.ts';
import { heldSaves } from '../../test/support/held-saves.ts';
import { writeScript } from '../../test/support/tool-scripts.ts';
import { everyAction } from '../../test/support/change-effects.ts';
import { openChangeLog } from '../changes/log.ts';
import { changeRunner, type ChangeEffects } from '../changes/runner.ts';
import { formatHostConfig, hostConfigStore, type HostConfigService } from './host-config.ts';

const temp = useTempDir('chutebox-hostconfig-');

/** The configuration generated for this test device: eth0 WAN, eth1 LAN, one radio. */
const GENERATED = hostConfigFor(['eth0', 'eth1'], [{ id: 'pci-wifi-0', channel: 1, hwmode: '11g', htmode: 'HT20' }]);

/** A new configuration: another LAN address, an access point whose SSID YAML 1.1 would read as a boolean. */
function edited(ipaddr = '10.10.0.1'): HostConfig {
  const config = structuredClone(GENERATED);
  config.lan.ipaddr = ipaddr;
  config['wifi-interfaces'] = [{ device: 'pci-wifi-0', ssid: 'yes', encryption: 'psk2', key: 'hunter2hunter2' }];
  return config;
}

/**
 * A store in a fresh state dir. The network apply command fails for a LAN on 10.99.0.1 (a file that
 * holds that address), as a real reload can fail; every apply is logged.
 */
async function setup() {
  const stateDir = await temp.folder(`state-${Math.random().toString(16).slice(2)}`);
  const log = path.join(stateDir, '..', `${path.basename(stateDir)}.log`);
  const apply = await writeScript(
    path.dirname(stateDir),
    `${path.basename(stateDir)}-apply`,
    `echo "$1" >> ${log}; if grep -q "'10.99.0.1'" "$2"; then echo "network did not come up" >&2; exit 1; fi`,
  );
  const chutes: StoredChute[] = [];
  const applied: HostConfig[] = [];
  const published: DeviceEventBody[] = [];
  /** The store over this state dir, as the runtime makes it at start (with the change records given). */
  const open = (changes?: Pick<Device, 'change'>) =>
    hostConfigStore({
      stateDir,
      chutes: { chuteNames: async () => chutes.map((chute) => chute.name), chute: async (name) => chutes.find((chute) => chute.name === name) ?? null },
      pdconf: { applyCommands: Object.fromEntries(['network', 'wireless', 'dhcp', 'firewall'].map((file) => [file, [apply, file, '{file}']])) },
      generate: async () => structuredClone(GENERATED),
      onApplied: (config) => applied.push(config),
      ...(changes === undefined ? {} : { changes }),
      publish: (body) => published.push(body),
    });
  const store = open();
  const notes: string[] = [];
  const note = async (text: string) => void notes.push(text);
  const file = (name: string) => readFile(path.join(stateDir, name), 'utf8').catch(() => null);
  const runs = async () => (await readFile(log, 'utf8').catch(() => '')).trim().split('\n').filter(Boolean);
  return { stateDir, store, open, chutes, applied, published, notes, note, file, runs };
}

/** Change effects where only a host configuration does anything: the store's own `perform`. */
function hostConfigEffects(store: Pick<HostConfigService, 'perform'>): ChangeEffects {
  const others = everyAction(async () => {
    throw new Error('only host configuration changes here');
  });
  return { ...others, 'update-hostconfig': (request, note, id) => store.perform(request, note, id) };
}

describe('hostConfigStore: the update-hostconfig change', () => {
  it('stores the configuration as YAML (mode 600), applies pdconf, and tells onApplied', async () => {
    const { store, note, notes, file, stateDir, applied, runs } = await setup();
    await store.perform({ action: 'update-hostconfig', config: edited() }, note);
    const text = await file('hostconfig.yaml');
    expect(parseStoredHostConfig(text!)).toEqual(edited());
    expect(text).toContain('ssid: "yes"');
    expect((await stat(path.join(stateDir, 'hostconfig.yaml'))).mode & 0o777).toBe(0o600);
    expect(await file('hostconfig.previous.yaml')).toBeNull();
    expect(await store.read()).toBe(text);
    expect(await store.current()).toEqual(edited());
    expect(await readFile(path.join(stateDir, 'pdconf', 'network'), 'utf8')).toContain("option ipaddr '10.10.0.1'");
    expect(await runs()).toEqual(['network', 'wireless', 'dhcp', 'firewall']);
    expect(notes[0]).toBe('stored the host configuration (none was stored: the generated one applied)');
    expect(notes.slice(1).map((text) => text.split(':')[0])).toEqual(['network', 'wireless', 'dhcp', 'firewall']);
    expect(applied).toEqual([edited()]);
  });

  it('keeps the configuration it replaces as hostconfig.previous.yaml, and applies only the files that change', async () => {
    const { store, note, file, runs } = await setup();
    await store.perform({ action: 'update-hostconfig', config: edited('10.10.0.1') }, note);
    const first = await file('hostconfig.yaml');
    await store.perform({ action: 'update-hostconfig', config: edited('10.20.0.1') }, note);
    expect(await file('hostconfig.previous.yaml')).toBe(first);
    expect(parseStoredHostConfig((await file('hostconfig.yaml'))!).lan.ipaddr).toBe('10.20.0.1');
    expect((await runs()).slice(4)).toEqual(['network']);
  });

  it('restores and applies again the previous configuration when applying fails, and fails with the reason', async () => {
    const { store, note, notes, file, applied, stateDir } = await setup();
    await store.perform({ action: 'update-hostconfig', config: edited('10.10.0.1') }, note);
    const [current, previous] = [await file('hostconfig.yaml'), await file('hostconfig.previous.yaml')];
    await expect(store.perform({ action: 'update-hostconfig', config: edited('10.99.0.1') }, note)).rejects.toThrow(
      /^applying the host configuration failed \(network: apply failed: .* exited with code 1: network did not come up\); the previous configuration was restored and applied$/,
    );
    expect(await file('hostconfig.yaml')).toBe(current);
    expect(await file('hostconfig.previous.yaml')).toBe(previous);
    expect(await readFile(path.join(stateDir, 'pdconf', 'network'), 'utf8')).toContain("option ipaddr '10.10.0.1'");
    expect((await store.pdconf()).every((section) => section.success)).toBe(true);
    expect(notes).toContain('restoring the previous host configuration');
    expect(applied.at(-1)).toEqual(edited('10.10.0.1'));
  });

  it('publishes hostconfig.applied for each update once pdconf applied it, success false for one that failed and was undone, and for a reset', async () => {
    const { store, note, published } = await setup();
    await store.perform({ action: 'update-hostconfig', config: edited('10.10.0.1') }, note);
    expect(published).toEqual([{ kind: 'hostconfig.applied', success: true }]);
    await expect(store.perform({ action: 'update-hostconfig', config: edited('10.99.0.1') }, note)).rejects.toThrow(/previous configuration was restored/);
    await store.refresh();
    await store.reset();
    expect(published).toEqual([
      { kind: 'hostconfig.applied', success: true },
      { kind: 'hostconfig.applied', success: false },
      { kind: 'hostconfig.applied', success: true },
    ]);
  });

  it('goes back to no stored configuration (the generated one) when the first update fails', async () => {
    const { store, note, file, stateDir } = await setup();
    await expect(store.perform({ action: 'update-hostconfig', config: edited('10.99.0.1') }, note)).rejects.toThrow(/previous configuration was restored/);
    expect(await file('hostconfig.yaml')).toBeNull();
    expect(await file('hostconfig.previous.yaml')).toBeNull();
    expect(await store.current()).toEqual(GENERATED);
    expect(await readFile(path.join(stateDir, 'pdconf', 'network'), 'utf8')).toContain("option ipaddr '192.168.1.1'");
  });

  it("keeps hostconfig.rollback.json until the change's succeeded is saved, then removes it", async () => {
    const context = await setup();
    const saves = heldSaves();
    const runner = changeRunner({
      openLog: () => saves.openLog(path.join(context.stateDir, 'changes'), Date.now),
      effects: hostConfigEffects(context.store),
    });
    const submitted = runner.submitChange({ action: 'update-hostconfig', config: edited('10.30.0.1') });
    for (;;) {
      const save = await saves.next();
      expect(save.text).not.toMatch(/^failed/);
      if (save.text === 'succeeded') {
        expect(JSON.parse((await context.file('hostconfig.rollback.json'))!)).toMatchObject({ change: 1, current: null });
        expect((await runner.change(1))!.state).toBe('running');
        save.release();
        break;
      }
      save.release();
    }
    await submitted;
    await runner.idle();
    expect((await runner.change(1))!.state).toBe('succeeded');
    expect(await context.file('hostconfig.rollback.json')).toBeNull();
    expect((await context.store.current()).lan.ipaddr).toBe('10.30.0.1');
  });
});

describe('hostConfigStore.recover', () => {
  it('puts back the configurations from before an update that a crash cut short, once, and the refresh that follows at start applies them', async () => {
    const { store, note, file, stateDir } = await setup();
    await store.perform({ action: 'update-hostconfig', config: edited('10.10.0.1') }, note);
    const before = await file('hostconfig.yaml');
    // A crash after the update stored its configuration and rendered it, before it was over:
    await writeFile(path.join(stateDir, 'hostconfig.rollback.json'), JSON.stringify({ current: before, previous: null }));
    await writeFile(path.join(stateDir, 'hostconfig.previous.yaml'), before!);
    await writeFile(path.join(stateDir, 'hostconfig.yaml'), formatHostConfig(edited('10.20.0.1')));
    await store.refresh();
    expect(await readFile(path.join(stateDir, 'pdconf', 'network'), 'utf8')).toContain("option ipaddr '10.20.0.1'");
    expect(await store.recover()).toBe(true);
    expect(await file('hostconfig.yaml')).toBe(before);
    expect((await readdir(stateDir)).sort()).toEqual(['hostconfig.yaml', 'pdconf']);
    expect(await store.recover()).toBe(false);
    expect((await store.refresh()).applied.map((entry) => entry.file)).toEqual(['network']);
    expect(await readFile(path.join(stateDir, 'pdconf', 'network'), 'utf8')).toContain("option ipaddr '10.10.0.1'");
  });

  /** The change records of a restarted runtime, in which change 1 (the update) reads `state`. */
  const records = (state: ChangeRecord['state']): Pick<Device, 'change'> => ({
    change: async (id) => (id === 1 ? { id, action: 'update-hostconfig', chute: null, state, created: '', updated: '', messages: [] } : null),
  });

  it('keeps an update whose change record reads succeeded, a crash having come before its rollback file was removed', async () => {
    const { store, open, note, file, stateDir } = await setup();
    await store.perform({ action: 'update-hostconfig', config: edited('10.10.0.1') }, note);
    const before = await file('hostconfig.yaml');
    // The update of change 1 ends, its `succeeded` is saved, and the runtime is killed before what perform answered ran:
    await store.perform({ action: 'update-hostconfig', config: edited('10.20.0.1') }, note, 1);
    expect(JSON.parse((await file('hostconfig.rollback.json'))!)).toEqual({ change: 1, current: before, previous: null });
    const restarted = open(records('succeeded'));
    expect(await restarted.recover()).toBe(false);
    expect((await restarted.current()).lan.ipaddr).toBe('10.20.0.1');
    expect(await file('hostconfig.previous.yaml')).toBe(before);
    expect((await readdir(stateDir)).sort()).toEqual(['hostconfig.previous.yaml', 'hostconfig.yaml', 'pdconf']);
  });

  it('undoes an update whose change record does not read succeeded: the runtime stopped before that was saved', async () => {
    const { store, open, note, file, stateDir } = await setup();
    await store.perform({ action: 'update-hostconfig', config: edited('10.10.0.1') }, note);
    const before = await file('hostconfig.yaml');
    await store.perform({ action: 'update-hostconfig', config: edited('10.20.0.1') }, note, 1);
    // Opening the change log at start marked the change that was running `failed`:
    const restarted = open(records('failed'));
    expect(await restarted.recover()).toBe(true);
    expect(await file('hostconfig.yaml')).toBe(before);
    expect((await readdir(stateDir)).sort()).toEqual(['hostconfig.yaml', 'pdconf']);
    await restarted.refresh();
    expect(await readFile(path.join(stateDir, 'pdconf', 'network'), 'utf8')).toContain("option ipaddr '10.10.0.1'");
  });
});

describe('hostConfigStore: pdconf, refresh and reset', () => {
  it("lets a new chute network's host interface through the firewall on refresh, applying that file only", async () => {
    const { store, chutes, runs } = await setup();
    await store.reloadPdconf();
    chutes.push({
      name: 'lab',
      record: {},
      config: { net: { v: { type: 'vlan', intfName: 'eth1', vlan_id: 7, dhcp: { start: 10, limit: 20, lease: '1h' } } } },
      cache: { networks: { v: { hostInterface: 'br-lan.7', ipv4Network: '10.128.0.0/24', gateway: '10.128.0.1' } } },
    });
    const report = await store.refresh();
    expect(report.applied.map((entry) => entry.file)).toEqual(['firewall']);
    expect((await runs()).slice(4)).toEqual(['firewall']);
  });

  it('resets to a fresh install: no stored configuration, pdconf rendered from the generated one and applied', async () => {
    const { store, note, stateDir, applied } = await setup();
    await store.perform({ action: 'update-hostconfig', config: edited('10.10.0.1') }, note);
    await store.perform({ action: 'update-hostconfig', config: edited('10.20.0.1') }, note);
    const report = await store.reset();
    expect(report.failures).toEqual([]);
    expect((await readdir(stateDir)).sort()).toEqual(['pdconf']);
    expect(await store.read()).toBeNull();
    expect(await readFile(path.join(stateDir, 'pdconf', 'network'), 'utf8')).toContain("option ipaddr '192.168.1.1'");
    expect(applied.at(-1)).toEqual(GENERATED);
  });

  it('matches, after a reset, the pdconf files of a fresh state dir that was refreshed', async () => {
    const used = await setup();
    await used.store.perform({ action: 'update-hostconfig', config: edited() }, used.note);
    await used.store.reset();
    const fresh = await setup();
    await fresh.store.refresh();
    for (const name of ['network', 'wireless', 'dhcp', 'firewall']) {
      expect(await readFile(path.join(used.stateDir, 'pdconf', name), 'utf8')).toBe(await readFile(path.join(fresh.stateDir, 'pdconf', name), 'utf8'));
    }
  });
});

describe('hostConfigStore: an update-hostconfig change with [redacted] placeholders, queued behind another', () => {
  /** The store's changes as the runtime runs them: one after the other, each record in `<state-dir>/changes`. */
  async function queued() {
    const context = await setup();
    const dir = path.join(context.stateDir, 'changes');
    const runner = changeRunner({ openLog: () => openChangeLog(dir, Date.now), effects: hostConfigEffects(context.store) });
    const records = async () => Promise.all((await readdir(dir)).map((name) => readFile(path.join(dir, name), 'utf8')));
    return { ...context, runner, records };
  }
  /** The configuration with an access point on a given key; `[redacted]` for what a GET/edit/PUT sends back. */
  const withKey = (key: string, ssid = 'home') => ({ ...edited(), 'wifi-interfaces': [{ device: 'pci-wifi-0', ssid, encryption: 'psk2', key }] });

  it('stores the key in effect when it runs, the one the change before it set, and writes no key into a change record', async () => {
    const { store, note, runner, records, file } = await queued();
    await store.perform({ action: 'update-hostconfig', config: withKey('first-key-K1') }, note);
    await runner.submitChange({ action: 'update-hostconfig', config: withKey('second-key-K2') });
    const last = await runner.submitChange({ action: 'update-hostconfig', config: withKey('[redacted]', 'renamed') });
    await runner.idle();
    expect((await runner.change(last.id))!.state).toBe('succeeded');
    expect((await store.current())['wifi-interfaces']).toEqual([{ device: 'pci-wifi-0', ssid: 'renamed', encryption: 'psk2', key: 'second-key-K2' }]);
    expect(await file('hostconfig.rollback.json')).toBeNull();
    const written = (await records()).join('\n');
    expect(written).not.toMatch(/first-key-K1|second-key-K2/);
  });

  it('fails, naming the path, with nothing stored or applied, when the change before it removed the secret behind a placeholder', async () => {
    const { store, note, runner, runs, file, stateDir } = await queued();
    await store.perform({ action: 'update-hostconfig', config: withKey('first-key-K1') }, note);
    await runner.submitChange({ action: 'update-hostconfig', config: { ...edited(), 'wifi-interfaces': [] } });
    await runner.idle();
    const [stored, previous, applies] = [await file('hostconfig.yaml'), await file('hostconfig.previous.yaml'), await runs()];
    // As a PUT accepted while the key was still there (it checked the placeholder then) runs once it is gone:
    const last = await runner.submitChange({ action: 'update-hostconfig', config: withKey('[redacted]', 'renamed') });
    await runner.idle();
    const failed = (await runner.change(last.id))!;
    expect(failed.state).toBe('failed');
    expect(failed.messages.at(-1)!.text).toMatch(
      /^failed: wifi-interfaces\[0\]\.key is \[redacted\], the placeholder of a secret, but the host configuration in effect now has no secret there/,
    );
    expect(failed.messages.map((message) => message.text)).toEqual(['queued', 'running', expect.stringMatching(/^failed: /)]);
    expect((await store.current())['wifi-interfaces']).toEqual([]);
    expect(await file('hostconfig.previous.yaml')).toBe(previous);
    expect(await file('hostconfig.yaml')).toBe(stored);
    expect(await runs()).toEqual(applies);
    expect((await readdir(stateDir)).sort()).toEqual(['changes', 'hostconfig.previous.yaml', 'hostconfig.yaml', 'pdconf']);
  });
});
