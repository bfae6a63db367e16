import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { hostConfigFor } from '../functions/config/host-config.ts';
import type { ChangeRecord, ChangeRequest, Device } from '../functions/core/device/index.ts';
import { loadScenario } from '../emulator/scenario/device.ts';
import { openChangeLog } from '../runtime/changes/log.ts';
import { changeRunner, type ChangeRunner } from '../runtime/changes/runner.ts';
import { chuteStore, JSON_FORMAT } from '../runtime/chutes/store.ts';
import { hostConfigStore } from '../runtime/device-config/host-config.ts';
import { powerChanges } from '../runtime/device-config/power.ts';
import { memoryProvisionStore, provisioning } from '../runtime/device-config/provisioning.ts';
import { runtimeUpdate } from '../runtime/device-config/runtime-release.ts';
import { controllerClient } from '../runtime/controller/client.ts';
import { fakeEngine } from './support/fake-engine.ts';
import { useTempDir } from './support/temp-dir.ts';
import { storedChuteEffects } from './support/chute-lifecycle.ts';

const temp = useTempDir('chutebox-change-pipeline-');

/**
 * The runtime's changes over a fresh state dir, as `serve` wires them, with a stand-in container engine:
 * the chute lifecycle, the host configuration store (pdconf without apply commands), power changes and
 * chutebox's own update on a device that is not provisioned.
 */
async function runtimeChanges(): Promise<ChangeRunner> {
  const stateDir = await temp.folder('state');
  const chutesDir = path.join(stateDir, 'chutes');
  const chutes = chuteStore(chutesDir, JSON_FORMAT);
  const engine = fakeEngine();
  const hostConfig = hostConfigStore({ stateDir, chutes, pdconf: { applyCommands: {} }, generate: async () => hostConfigFor(['eth0', 'eth1'], []) });
  const power = powerChanges({ commands: {} });
  const unprovisioned = provisioning({ store: memoryProvisionStore(), client: controllerClient(), report: async () => ({}) });
  return changeRunner({
    openLog: () => openChangeLog(path.join(stateDir, 'changes'), Date.now),
    effects: {
      ...storedChuteEffects(chutesDir, engine),
      'update-hostconfig': (request, note, id) => hostConfig.perform(request, note, id),
      'update-runtime': runtimeUpdate({ stateDir, provisioning: unprovisioned }),
      reboot: power,
      shutdown: power,
    },
  });
}

/** Install, stop, start, a new configuration, one that fails (a placeholder with no secret behind it), delete, and a host configuration. */
const SEQUENCE: ChangeRequest[] = [
  { action: 'install', chute: 'cross', image: 'busybox:1', version: '1', config: { environment: { MODE: 'a' } }, environment: {}, allocation: {} },
  { action: 'stop', chute: 'cross' },
  { action: 'start', chute: 'cross' },
  { action: 'update-config', chute: 'cross', config: { environment: { MODE: 'b', API_TOKEN: 'token-1' } } },
  { action: 'update-config', chute: 'cross', config: { environment: { MODE: 'c', OTHER_TOKEN: '[redacted]' } } },
  { action: 'delete', chute: 'cross' },
  { action: 'update-hostconfig', config: hostConfigFor(['eth0', 'eth1'], []) as Record<string, unknown> },
  { action: 'update-runtime' },
];

/** Submits each change once the one before it is final, and answers every final record. */
async function run(device: Pick<Device, 'submitChange' | 'change'>): Promise<ChangeRecord[]> {
  const records: ChangeRecord[] = [];
  for (const request of SEQUENCE) {
    const { id } = await device.submitChange(structuredClone(request));
    for (;;) {
      const record = (await device.change(id))!;
      if (record.state === 'succeeded' || record.state === 'failed') {
        records.push(record);
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  }
  return records;
}

/**
 * A record as both devices must agree on it: every field but the times, and the pipeline's own
 * messages (`queued`, `running`, and the outcome); the notes between them are the effects', which may
 * say that they were emulated.
 */
function pipelineView(record: ChangeRecord) {
  const { created: _created, updated: _updated, messages, ...fields } = record;
  const texts = messages.map((message) => message.text);
  return { ...fields, messages: [texts[0], texts[1], texts.at(-1)], notes: texts.length > 3 };
}

describe('the one change pipeline, on the runtime and in the emulator', () => {
  it('writes the same change records for the same changes, field by field, timestamps and effect notes aside', async () => {
    const { device: emulator } = await loadScenario('default', undefined, { changeDelayMs: 0 });
    const [onRuntime, inEmulator] = [await run(await runtimeChanges()), await run(emulator)];

    expect(inEmulator.map(pipelineView)).toEqual(onRuntime.map(pipelineView));
    expect(onRuntime.map(pipelineView)).toEqual([
      { id: 1, action: 'install', chute: 'cross', state: 'succeeded', messages: ['queued', 'running', 'succeeded'], notes: true },
      { id: 2, action: 'stop', chute: 'cross', state: 'succeeded', messages: ['queued', 'running', 'succeeded'], notes: true },
      { id: 3, action: 'start', chute: 'cross', state: 'succeeded', messages: ['queued', 'running', 'succeeded'], notes: true },
      { id: 4, action: 'update-config', chute: 'cross', state: 'succeeded', messages: ['queued', 'running', 'succeeded'], notes: true },
      {
        id: 5,
        action: 'update-config',
        chute: 'cross',
        state: 'failed',
        messages: ['queued', 'running', expect.stringMatching(/^failed: .*OTHER_TOKEN/)],
        notes: expect.any(Boolean),
      },
      { id: 6, action: 'delete', chute: 'cross', state: 'succeeded', messages: ['queued', 'running', 'succeeded'], notes: true },
      { id: 7, action: 'update-hostconfig', chute: null, state: 'succeeded', messages: ['queued', 'running', 'succeeded'], notes: true },
      {
        id: 8,
        action: 'update-runtime',
        chute: null,
        state: 'failed',
        messages: ['queued', 'running', 'failed: the device is not provisioned: no controller offers it a release (POST /api/v1/config/provision)'],
        notes: true,
      },
    ]);
  });
});
