import path from 'node:path';
import { deviceChuteToken } from '../../runtime/auth/local.ts';
import { networkLedger, type HeldReservations, type NetworkChange } from '../../functions/chutes/network-reservations.ts';
import type { Device } from '../../functions/core/device/index.ts';
import { chuteEffects, type ChuteEffects } from '../../runtime/chutes/lifecycle.ts';
import { chuteStore, chuteWriter, JSON_FORMAT, type ChuteWriter } from '../../runtime/chutes/store.ts';
import type { ChuteEngine } from '../../runtime/engine/docker.ts';
import { combine, lanBridge, pciRouter, vlanKernel } from './info-devices.ts';
import { memoryDevice } from './memory-device.ts';

/**
 * The `reserve` of the chute lifecycle for a test: a `networkLedger` on a host with no route, the
 * two radios of `pciRouter` and their generated host configuration, a LAN bridge and 802.1Q, among
 * the chutes of `chutes`.
 */
export function reserveAmong(chutes: Pick<Device, 'chute' | 'chuteNames'>): (change: NetworkChange) => Promise<HeldReservations> {
  return networkLedger({
    ...memoryDevice(combine(pciRouter, lanBridge, vlanKernel)),
    chute: (name) => chutes.chute(name),
    chuteNames: () => chutes.chuteNames(),
  });
}

/**
 * The runtime's chute lifecycle (runtime/chutes/lifecycle.ts) on the chutes stored in `dir` (a
 * `<state-dir>/chutes`), a test engine, containers on network `none`, chute tokens made with that
 * state dir's secret, and networks reserved on a host with no route, two radios and VLANs (`reserveAmong`).
 *
 * @example
 * changeRunner({ openLog, effects: { ...everyAction(refuse), ...storedChuteEffects(dir, fakeEngine()) } });
 */
export function storedChuteEffects(dir: string, engine: ChuteEngine, writer: ChuteWriter = chuteWriter(dir)): ChuteEffects {
  const chutes = chuteStore(dir, JSON_FORMAT);
  const chuteToken = (chute: string) => deviceChuteToken(path.dirname(dir), chute);
  return chuteEffects({ chutes, writer, engine: async () => engine, networkMode: 'none', chuteToken, reserve: reserveAmong(chutes) });
}
