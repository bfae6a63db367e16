import { expect } from 'vitest';
import type { RunningFleet } from '../../emulator/fleet/start-fleet.ts';

/** Every answer of `paths` on the device at `index` of `fleet`, one after another: its status, type and body as sent. */
export async function deviceAnswers(fleet: RunningFleet, index: number, paths: readonly string[]): Promise<string[]> {
  const out = [];
  for (const path of paths) {
    const res = await fetch(`${fleet.deviceUrl(index)}${path}`);
    out.push(`${path} ${res.status} ${res.headers.get('content-type')}\n${await res.text()}`);
  }
  return out;
}

/** Addresses the devices from `from` up to `to` once each: in a fleet that keeps few built, those before leave. */
export async function addressOthers(fleet: RunningFleet, from: number, to: number): Promise<void> {
  for (let index = from; index < to; index++) expect((await fetch(`${fleet.deviceUrl(index)}/api/v1/info/features`)).status).toBe(200);
}

/** Where a default scenario device's guest SSID is read and set. */
export const GUEST_SSID = '/api/v1/chutes/hotspot/networks/guest/ssid';

/** The body of `POST /api/v1/chutes` that installs a chute no scenario has: it shows in a device's state. */
export const NEWCOMER = {
  name: 'newcomer',
  image: 'chutebox/newcomer:1',
  version: '1',
  config: { net: { wlan: { type: 'wifi', intfName: 'wlan0', ssid: 'new-lab' } } },
};
