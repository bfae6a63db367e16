import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { NetworkReservation } from '../../functions/chutes/network-reservations.ts';
import type { ChuteCache } from '../../functions/chutes/schemas.ts';

/** `GET /api/v1/chutes/<chute>/cache` as the tests read it: the reservations of its networks named `N`. */
export type CachedNetworks<N extends string> = ChuteCache & { networks: Record<N, NetworkReservation> };

/** The host resources behind one chute network, as the runtime records them in the chute cache. */
export interface NetworkResources {
  hostInterface?: string;
  hostapdControl?: string;
  leaseFile?: string;
}

/**
 * Installs a chute in a runtime state dir the way the runtime stores it: `chutes/<name>/chute.json`,
 * `service.json` (the chute configuration, with `net`) and `cache.json` (`networks.<network>`).
 *
 * @example
 * await writeChute(stateDir, 'hello', { wifi: { type: 'wifi', intfName: 'wlan0', ssid: 'lab' } }, { wifi: { hostInterface: 'vwlan0' } });
 */
export async function writeChute(
  stateDir: string,
  name: string,
  net: Record<string, Record<string, unknown>>,
  networks: Record<string, NetworkResources>,
): Promise<void> {
  const dir = path.join(stateDir, 'chutes', name);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const write = (file: string, value: unknown) => writeFile(path.join(dir, file), `${JSON.stringify(value, null, 2)}\n`);
  await write('chute.json', { name, version: 1, state: 'running', environment: {}, resources: {} });
  await write('service.json', { net });
  await write('cache.json', { networks });
}

/**
 * Installs a chute that the runtime can run on a container engine: `chutes/<name>/chute.json` with the
 * image to run (`image`) and `service.json` with its configuration (no cache).
 *
 * @example
 * await installChute(stateDir, 'hello', 'chutebox-test:sleeper', { environment: { GREETING: 'hi' } });
 */
export async function installChute(
  stateDir: string,
  name: string,
  image: string,
  config: Record<string, unknown>,
  record: Record<string, unknown> = {},
): Promise<void> {
  const dir = path.join(stateDir, 'chutes', name);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const write = (file: string, value: unknown) => writeFile(path.join(dir, file), `${JSON.stringify(value, null, 2)}\n`);
  await write('chute.json', { name, version: 1, state: 'stopped', image, environment: {}, resources: null, ...record });
  await write('service.json', config);
}
