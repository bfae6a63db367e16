import { describe, expect, it } from 'vitest';
import { fleetEnvironment } from './fleet-environment.ts';

const FLEET = { CHUTEBOX_FLEET_TABLE: 'ChuteboxFleet-Devices', CHUTEBOX_FLEET_SIZE: '10000' };

describe("a fleet's environment on Lambda", () => {
  it('gives the fleet the CDK stack describes, with the seed and scenario of emulate when unset', async () => {
    expect(await fleetEnvironment(FLEET)).toEqual({
      table: 'ChuteboxFleet-Devices',
      spec: { size: 10000, seed: 1, scenarios: [{ scenario: 'default', share: 1 }] },
      domain: undefined,
      endpoint: undefined,
      device: {},
    });
    const mixed = await fleetEnvironment({
      ...FLEET,
      CHUTEBOX_SEED: '42',
      CHUTEBOX_FLEET_SCENARIOS: 'default=0.7,gl-ar150=0.3',
      CHUTEBOX_FLEET_DOMAIN: 'fleet.example.com',
      CHUTEBOX_DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000',
      CHUTEBOX_CHANGE_DELAY: '50',
      CHUTEBOX_CONTROLLER: 'https://controller.example.com',
    });
    expect(mixed).toMatchObject({
      spec: {
        size: 10000,
        seed: 42,
        scenarios: [
          { scenario: 'default', share: 0.7 },
          { scenario: 'gl-ar150', share: 0.3 },
        ],
      },
      domain: 'fleet.example.com',
      endpoint: 'http://127.0.0.1:8000',
      device: { changeDelayMs: 50, controller: 'https://controller.example.com' },
    });
  });

  it('refuses a missing or bad value, naming its variable', async () => {
    await expect(fleetEnvironment({ CHUTEBOX_FLEET_SIZE: '10' })).rejects.toThrow(/^CHUTEBOX_FLEET_TABLE: /);
    await expect(fleetEnvironment({ ...FLEET, CHUTEBOX_FLEET_SIZE: '0' })).rejects.toThrow(/^CHUTEBOX_FLEET_SIZE: must be the number of devices/);
    await expect(fleetEnvironment({ CHUTEBOX_FLEET_TABLE: 't' })).rejects.toThrow(/^CHUTEBOX_FLEET_SIZE: /);
    await expect(fleetEnvironment({ ...FLEET, CHUTEBOX_SEED: '-1' })).rejects.toThrow(/^CHUTEBOX_SEED: /);
    await expect(fleetEnvironment({ ...FLEET, CHUTEBOX_FLEET_SCENARIOS: 'default=0.7,nowhere=0.3' })).rejects.toThrow(
      /^CHUTEBOX_FLEET_SCENARIOS: unknown scenario "nowhere"/,
    );
    await expect(fleetEnvironment({ ...FLEET, CHUTEBOX_CHANGE_DELAY: 'soon' })).rejects.toThrow(/^CHUTEBOX_CHANGE_DELAY: /);
  });
});
