import type { DeviceAudio } from './audio.ts';
import type { DeviceChanges } from './changes.ts';
import type { DeviceLogs } from './logs.ts';
import type { DeviceEvents } from './events.ts';
import type { DeviceNetworks } from './networks.ts';
import type { DeviceServices } from './services.ts';
import type { DeviceSources } from './sources.ts';

export * from './audio.ts';
export * from './changes.ts';
export * from './chute-services.ts';
export * from './events.ts';
export * from './logs.ts';
export * from './names.ts';
export * from './networks.ts';
export * from './provisioning.ts';
export * from './services.ts';
export * from './snapd.ts';
export * from './sources.ts';

/**
 * The only way a handler or a transport reaches the device it runs on, in seven facets (docs/decisions/0023):
 * - `DeviceSources`: raw data (files, `statfs`, `uname`, the programs on PATH, the clock, the engine's
 *   JSON, the stored chutes, the settings) that the parsers of `functions/parsers/` interpret;
 * - `DeviceNetworks`: the host side of the chutes' networks (iw, hostapd, dnsmasq), raw too;
 * - `DeviceChanges`: the change log, fed by the one change pipeline (runtime/changes/runner.ts);
 * - `DeviceServices`: what acts and answers what it did (host configuration, provisioning, accounts,
 *   images, factory reset);
 * - `DeviceLogs`: what the chutes print, as a stream;
 * - `DeviceEvents`: what happens on the device as it happens, kept in a bounded buffer, which the
 *   events stream (`GET /api/v1/events`) follows (runtime/events/buffer.ts);
 * - `DeviceAudio`: the audio server (PulseAudio) as `pactl` prints it, and its settings.
 *
 * Naming rules (`CHUTE_NAME`, `CHUTE_LABEL`, …) are in `device/names.ts`. The runtime implements it on
 * the real host (runtime/host-device.ts), the emulator over a recorded scenario
 * (emulator/scenario/device.ts), the tests in memory (test/support/memory-device.ts).
 *
 * @example
 * const text = await device.readFile('/proc/meminfo'); // null when the device has no such file
 */
export interface Device extends DeviceSources, DeviceNetworks, DeviceChanges, DeviceServices, DeviceLogs, DeviceEvents, DeviceAudio {}
