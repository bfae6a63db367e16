import { describe, expect, it } from 'vitest';
import { chuteNetworks, linkArgs } from './chute-networks.ts';

describe('linkArgs: how a network’s host interface is made', () => {
  it('makes a VLAN network an 802.1Q interface of the LAN bridge, tagged with vlan_id', () => {
    expect(linkArgs('vlan', { hostInterface: 'br-lan.20', vlanId: 20 }, null)).toEqual([
      'link',
      'add',
      'link',
      'br-lan',
      'name',
      'br-lan.20',
      'type',
      'vlan',
      'id',
      '20',
    ]);
  });

  it('makes an access point or a VLAN network a macvlan (bridge mode) of the lab link in a lab', () => {
    const macvlan = ['link', 'add', 'link', 'lab0', 'name', 'vwlan1a2b', 'type', 'macvlan', 'mode', 'bridge'];
    expect(linkArgs('access-point', { hostInterface: 'vwlan1a2b', vlanId: null }, 'lab0')).toEqual(macvlan);
    expect(linkArgs('vlan', { hostInterface: 'br-lan.20', vlanId: 20 }, 'lab0')).toEqual([
      'link',
      'add',
      'link',
      'lab0',
      'name',
      'br-lan.20',
      'type',
      'macvlan',
      'mode',
      'bridge',
    ]);
  });

  it('refuses, saying why, an access point without a lab link (radios come next) and a VLAN interface named otherwise', () => {
    expect(() => linkArgs('access-point', { hostInterface: 'vwlan1a2b', vlanId: null }, null)).toThrow(/--lab-link/);
    expect(() => linkArgs('vlan', { hostInterface: 'vlan20', vlanId: 20 }, null)).toThrow(/<LAN interface>.<VLAN ID>/);
  });
});

describe('chuteNetworks.up on a device without a lab link', () => {
  it('says in the change that access points on a radio and monitor interfaces are not built yet, and runs nothing for them', async () => {
    const missing = '/nonexistent/tool';
    const networks = chuteNetworks({
      runDir: '/nonexistent/run',
      labLink: null,
      tools: { ip: missing, hostapd: missing, dnsmasq: missing, nsenter: missing, nft: missing, timeoutMs: 1000 },
    });
    const cache = {
      networks: {
        wifi: {
          hostInterface: 'vwlan0001',
          ipv4Network: '10.128.0.0/24',
          gateway: '10.128.0.1',
          chuteAddress: '10.128.0.2',
          hostapdControl: '/run/h/vwlan0001',
        },
        mon: { hostInterface: 'vmon0002' },
      },
    };
    const config = { net: { wifi: { type: 'wifi', intfName: 'wlan0', ssid: 'lab', dhcp: {} }, mon: { type: 'wifi', mode: 'monitor', intfName: 'mon0' } } };
    const notes: string[] = [];
    await networks.up({ name: 'lab', record: {}, config, cache }, async (text) => void notes.push(text), 1234);
    expect(notes).toEqual([
      "network wifi: access points on a radio are not built by serve yet; pdconf's files describe it",
      "network mon: monitor interfaces are not built by serve yet; pdconf's files describe it",
    ]);
  });
});
