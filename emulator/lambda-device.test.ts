import { afterEach, describe, expect, it } from 'vitest';
import { createDevice } from './lambda-device.ts';

const NAMES = ['CHUTEBOX_SCENARIO', 'CHUTEBOX_CHANGE_DELAY', 'CHUTEBOX_CONTROLLER'] as const;
const saved = Object.fromEntries(NAMES.map((name) => [name, process.env[name]]));

afterEach(() => {
  for (const name of NAMES) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

async function settled(device: Awaited<ReturnType<typeof createDevice>>, id: number) {
  for (;;) {
    const change = await device.change(id);
    if (change?.state === 'succeeded' || change?.state === 'failed') return change;
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

describe('the Lambda device module', () => {
  it('serves the scenario of CHUTEBOX_SCENARIO, whose changes run to the end', async () => {
    process.env.CHUTEBOX_SCENARIO = 'default';
    process.env.CHUTEBOX_CHANGE_DELAY = '0';
    const device = await createDevice();
    const change = await device.submitChange({ action: 'stop', chute: 'hotspot' });
    expect((await settled(device, change.id)).state).toBe('succeeded');
  });

  it('refuses a bad CHUTEBOX_CHANGE_DELAY or CHUTEBOX_CONTROLLER, naming the variable', async () => {
    process.env.CHUTEBOX_CHANGE_DELAY = 'soon';
    await expect(createDevice()).rejects.toThrow(/^CHUTEBOX_CHANGE_DELAY: .*milliseconds/);
    delete process.env.CHUTEBOX_CHANGE_DELAY;
    process.env.CHUTEBOX_CONTROLLER = 'ftp://controller.example';
    await expect(createDevice()).rejects.toThrow(/^CHUTEBOX_CONTROLLER: .*http or https/);
  });
});
