import type { Device, ProvisionCredentials } from '../functions/core/device.ts';
import { invoke, type Handler } from '../functions/core/invoke.ts';
import type { ScenarioProvisioning, ScenarioProvisioningOptions } from '../emulator/scenario-provisioning.ts';
import { memoryDevice, type MemoryDeviceSpec } from './memory-device.ts';

/*
 * Devices for the provisioning handler tests: a memory device whose provisioning is the emulator's
 * (memory store, built-in fake controller: emulator/fake-controller.ts).
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

/**
 * Calls a handler as a transport does, a body as JSON, and answers the status and decoded body
 * (no schema checks: see `callChute` for those).
 */
export async function callHandler<T = unknown>(handle: Handler, device: Device, body?: unknown): Promise<{ status: number; body: T }> {
  const headers: Record<string, string> = body === undefined ? {} : { 'content-type': 'application/json' };
  const out = await invoke(handle, { params: {}, query: {}, headers, body, text: body === undefined ? '' : JSON.stringify(body) }, device);
  return { status: out.status, body: JSON.parse(out.body) as T };
}
