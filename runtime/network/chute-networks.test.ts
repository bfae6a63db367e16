import { describe, expect, it } from 'vitest';
import { linkArgs } from './chute-networks.ts';

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
