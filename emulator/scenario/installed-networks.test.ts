import { describe, expect, it } from 'vitest';
import type { StoredChute } from '../../functions/core/device/index.ts';
import { isHttpProblem } from '../../functions/core/problem.ts';
import { parseHostapdReply } from '../../functions/parsers/hostapd.ts';
import { accessPointReservation } from '../../test/support/network-reservations.ts';
import { bssidOf, installedRecordings, rebuiltNetworks, sameNetwork, type EmulatedRadio } from './installed-networks.ts';

const RADIO: EmulatedRadio = {
  phy: 'phy0',
  macAddr: '04:f0:21:34:5a:9e',
  settings: { id: 'pci-wifi-0', channel: 36, hwmode: '11a' } as EmulatedRadio['settings'],
};
const WLAN = { type: 'wifi', intfName: 'wlan0', ssid: 'My Lab', key: 'password1', dhcp: {} };
/** A chute as an install through the API leaves it: its configuration's `net` and the reservations in its cache. */
const chute = (net: Record<string, unknown>, networks: Record<string, unknown>): StoredChute => ({
  name: 'lab',
  record: { name: 'lab', state: 'running' },
  config: { net },
  cache: { networks },
});
const LAB = chute({ wlan: WLAN }, { wlan: accessPointReservation('vwlan4dfe') });

describe('the networks serve would run for an installed chute', () => {
  it('answers an access point with hostapd started for its SSID and key on its radio, an empty lease file and no station', () => {
    const texts = installedRecordings(LAB, 'wlan', RADIO);
    expect(texts).toMatchObject({ leases: '', stationDump: '', hostapdStations: '' });
    const config = parseHostapdReply(texts.hostapdConfig as string);
    expect(config).toEqual({
      bssid: bssidOf(RADIO.macAddr, 'vwlan4dfe'),
      ssid: 'My Lab',
      wps_state: 'disabled',
      wpa: '2',
      key_mgmt: 'WPA-PSK',
      group_cipher: 'CCMP',
      rsn_pairwise_cipher: 'CCMP',
    });
    expect(parseHostapdReply(texts.hostapdStatus as string)).toMatchObject({
      phy: 'phy0',
      channel: '36',
      'bss[0]': 'vwlan4dfe',
      'ssid[0]': 'My Lab',
      'num_sta[0]': '0',
    });
  });

  it('answers a VLAN network with its lease file only, and a monitor interface or a network without a reservation with nothing', () => {
    const office = chute(
      { staff: { type: 'vlan', intfName: 'vlan0', vlan_id: 20, dhcp: {} }, survey: { type: 'wifi', intfName: 'mon0', mode: 'monitor' }, wlan: WLAN },
      {
        staff: accessPointReservation('br-lan.20', { hostapdControl: null, vlanId: 20, radio: null }),
        survey: accessPointReservation('vmon1a2b', { ipv4Network: null }),
      },
    );
    expect(installedRecordings(office, 'staff', RADIO)).toEqual({ leases: '' });
    expect(installedRecordings(office, 'survey', RADIO)).toEqual({});
    expect(installedRecordings(office, 'wlan', RADIO)).toEqual({});
  });

  it('answers hostapd as a missing control socket, naming why, when serve could not start it: a radio gone, an access point without an SSID', () => {
    for (const [texts, why] of [
      [installedRecordings(LAB, 'wlan', null), 'radio pci-wifi-0 is not on this device'],
      [installedRecordings(chute({ wlan: { ...WLAN, ssid: undefined } }, { wlan: accessPointReservation('vwlan4dfe') }), 'wlan', RADIO), 'ssid is required'],
    ] as const) {
      for (const recording of ['hostapdStatus', 'hostapdConfig', 'hostapdStations'] as const) {
        const problem = texts[recording];
        expect(isHttpProblem(problem) && problem.status).toBe(503);
        expect((problem as Error).message).toMatch(
          /^hostapd control socket \/var\/lib\/chutebox\/networks\/hostapd\/vwlan4dfe does not exist: hostapd could not be started/,
        );
        expect((problem as Error).message).toContain(why);
      }
      expect(texts.leases).toBe('');
    }
  });
});

describe('what a change to a chute rebuilds', () => {
  it('keeps a network whose entry and reservation are unchanged, and rebuilds one whose SSID or reservation changed', () => {
    const renamed = chute({ wlan: { ...WLAN, ssid: 'Renamed' } }, { wlan: accessPointReservation('vwlan4dfe') });
    const moved = chute({ wlan: WLAN }, { wlan: accessPointReservation('vwlan4dfe', { ipv4Network: '10.128.1.0/24' }) });
    expect(sameNetwork(LAB, structuredClone(LAB), 'wlan')).toBe(true);
    expect(rebuiltNetworks(LAB, structuredClone(LAB))).toEqual([]);
    expect(rebuiltNetworks(LAB, renamed)).toEqual(['wlan']);
    expect(rebuiltNetworks(LAB, moved)).toEqual(['wlan']);
  });

  it('keeps a recorded network whose cache leaves out fields an update writes back as null', () => {
    const { radio: _radio, vlanId: _vlanId, chuteAddress: _chuteAddress, ...recorded } = accessPointReservation('vwlan4dfe');
    const before = chute({ wlan: WLAN }, { wlan: recorded });
    const updated = chute({ wlan: WLAN }, { wlan: { ...recorded, radio: null, vlanId: null, chuteAddress: null } });
    expect(rebuiltNetworks(before, updated)).toEqual([]);
  });

  it('rebuilds every network of a chute that is deleted', () => {
    expect(rebuiltNetworks(chute({ wlan: WLAN, staff: { type: 'vlan' } }, {}), null)).toEqual(['wlan', 'staff']);
  });
});

describe("an access point's BSSID", () => {
  it("is the radio's MAC made locally administered, the same for an interface every time and another for another interface", () => {
    const bssid = bssidOf('04:f0:21:34:5a:9e', 'vwlan4dfe');
    expect(bssid).toMatch(/^06:f0:21:34:[0-9a-f]{2}:[0-9a-f]{2}$/);
    expect(bssidOf('04:f0:21:34:5a:9e', 'vwlan4dfe')).toBe(bssid);
    expect(bssidOf('04:f0:21:34:5a:9e', 'vwlan0c31')).not.toBe(bssid);
  });
});
