import type { Device, ProvisionCredentials } from '../../functions/core/device/index.ts';
import type { ScenarioProvisioning, ScenarioProvisioningOptions } from '../../emulator/scenario/provisioning.ts';
import { memoryDevice, type MemoryDeviceSpec } from './memory-device.ts';

/*
 * Devices for the provisioning handler tests: a memory device whose provisioning is the emulator's
 * (memory store, built-in fake controller: emulator/scenario/fake-controller.ts).
 */

/** Credentials the fake controller accepts, of the shape ParaDrop's controller hands out. */
export const CREDENTIALS: ProvisionCredentials = {
  routerId: '5c3f2e8a9b1d4e0012ab34cd',
  apitoken: 'eyJhbGciOiJIUzI1NiJ9.eyJyb3V0ZXIiOiI1YzNmIn0.c2lnbmF0dXJl',
  pdserver: 'https://paradrop.org',
  wampRouter: 'ws://paradrop.org:9086/ws',
};

/**
 * A memory device (`spec`) with the emulator's provisioning; telemetry reports are made from the
 * device itself, as on a real one.
 *
 * @example
 * const { device, provisioning } = provisioningDevice();
 * provisioning.fake!.log().checks // 0
 */
export function provisioningDevice(
  options: Partial<ScenarioProvisioningOptions> = {},
  spec: MemoryDeviceSpec = {},
): { device: Device; provisioning: ScenarioProvisioning } {
  const device = memoryDevice({ ...spec, provisioning: options });
  return { device, provisioning: device.provisioning };
}
