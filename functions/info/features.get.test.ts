import { describe, expect, it } from 'vitest';
import { callFunction } from '../../test/support/call-function.ts';
import { infoOf, rawFixture } from '../../test/support/info-devices.ts';
import { memoryDevice } from '../../test/support/memory-device.ts';
import * as features from './features.get.ts';

/** What the default scenario's OpenWrt x86 device has. */
const OPENWRT = ['ip', 'iw', 'hostapd', 'hostapd_cli', 'dnsmasq', 'nsenter', 'nft'];

describe('GET /api/v1/info/features', () => {
  it('lists audio last where the audio server answers pactl info, and not where it does not', async () => {
    const info = rawFixture('pactl/info.json');
    const withAudio = memoryDevice({ containers: [], audio: { info, sinks: '[]', sources: '[]', modules: '[]', 'modules-short': '' } });
    expect((await callFunction(features, withAudio)).body).toEqual(['hostapd-control', 'docker', 'audio']);
    expect((await callFunction(features, memoryDevice({ containers: [] }))).body).toEqual(['hostapd-control', 'docker']);
  });

  it('responds with 200 and hostapd-control and docker when a container engine answers', async () => {
    expect(await infoOf(features, { containers: [] })).toEqual(['hostapd-control', 'docker']);
  });

  it('responds with hostapd-control alone on a device without a container engine', async () => {
    expect(await infoOf(features, { containers: null })).toEqual(['hostapd-control']);
  });

  it('lists chute-networks after docker when the device has the programs that build them', async () => {
    expect(await infoOf(features, { containers: [], programs: OPENWRT })).toEqual(['hostapd-control', 'docker', 'chute-networks']);
  });

  it('takes iptables for the firewall as well as nft', async () => {
    const programs = ['ip', 'hostapd', 'dnsmasq', 'nsenter', 'iptables'];
    expect(await infoOf(features, { containers: [], programs })).toEqual(['hostapd-control', 'docker', 'chute-networks']);
  });

  it('does not list chute-networks when one of the programs is missing', async () => {
    for (const missing of ['ip', 'hostapd', 'dnsmasq', 'nsenter']) {
      const programs = OPENWRT.filter((name) => name !== missing);
      expect(await infoOf(features, { containers: [], programs }), `without ${missing}`).toEqual(['hostapd-control', 'docker']);
    }
    const noFirewall = OPENWRT.filter((name) => name !== 'nft');
    expect(await infoOf(features, { containers: [], programs: noFirewall }), 'without nft or iptables').toEqual(['hostapd-control', 'docker']);
  });

  it('does not list chute-networks without a container engine, nor ask for the programs', async () => {
    let asked = false;
    const device = memoryDevice({ containers: null, programs: OPENWRT });
    const answer = await features.handle(
      { params: {}, query: {}, headers: {}, body: undefined, text: '' },
      { ...device, programs: () => ((asked = true), device.programs()) },
    );
    expect(answer).toEqual(['hostapd-control']);
    expect(asked).toBe(false);
  });

  it('answers the same frozen list to every request', async () => {
    const device = memoryDevice({ containers: [], programs: OPENWRT });
    const input = { params: {}, query: {}, headers: {}, body: undefined, text: '' };
    const first = await features.handle(input, device);
    expect(await features.handle(input, device)).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
  });
});
