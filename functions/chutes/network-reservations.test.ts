import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isHttpProblem } from '../core/problem.ts';
import { parseRoutes } from '../parsers/proc-net-route.ts';
import type { RadioOffer } from './radio-choice.ts';
import { recordedReservations, reserveNetworks, type NetworkReservation, type ReservationContext } from './network-reservations.ts';

/** A host with its WAN on eth0 (192.0.2.0/24, the default route) and its LAN on br-lan (192.168.1.0/24). */
const ROUTES = `Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT
eth0\t00000000\t010200C0\t0003\t0\t0\t0\t00000000\t0\t0\t0
eth0\t000200C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0
br-lan\t0001A8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0
`;

/** A dual-radio device: 5 GHz first, then 2.4 GHz, as the generated host configuration plans them. */
const RADIOS: RadioOffer[] = [
  { id: 'pci-wifi-0', band: '5g', hostNetworks: [] },
  { id: 'pci-wifi-1', band: '2g', hostNetworks: [] },
];

function context(overrides: Partial<ReservationContext> = {}): ReservationContext {
  return {
    chute: 'hello',
    routes: parseRoutes(ROUTES),
    interfaces: ['lo', 'eth0', 'br-lan'],
    others: new Map(),
    previous: {},
    previousNet: {},
    pool: 'auto',
    runDir: '/var/lib/chutebox/networks',
    lanInterface: 'br-lan',
    radios: RADIOS,
    dot1q: true,
    ...overrides,
  };
}

const AP = { type: 'wifi', intfName: 'wlan0', ssid: 'lab', dhcp: { start: 100, limit: 50 } };

/** The 422's errors, path and message, of a reservation that is refused. */
function refusal(run: () => unknown): { path: string; message: string }[] {
  try {
    run();
  } catch (error) {
    if (isHttpProblem(error) && error.status === 422) return error.errors ?? [];
    throw error;
  }
  throw new Error('the reservation was not refused');
}

describe('reserveNetworks', () => {
  it("gives an access point the pool's first /24, the host its first address and the chute its second, a vwlan name, a control socket and a lease file", () => {
    const { wifi } = reserveNetworks({ wifi: AP }, context());
    expect(wifi).toEqual({
      hostInterface: expect.stringMatching(/^vwlan[0-9a-f]{4}$/),
      ipv4Network: '10.128.0.0/24',
      gateway: '10.128.0.1',
      chuteAddress: '10.128.0.2',
      hostapdControl: `/var/lib/chutebox/networks/hostapd/${wifi!.hostInterface}`,
      leaseFile: '/var/lib/chutebox/networks/dnsmasq/hello-wifi.leases',
      vlanId: null,
      radio: 'pci-wifi-0',
    });
    expect(reserveNetworks({ wifi: AP }, context()).wifi!.hostInterface, 'the same chute and interface get the same name').toBe(wifi!.hostInterface);
  });

  it('takes 192.168.128.0/17 as the pool when the WAN is in 10.0.0.0/8, as ParaDrop does', () => {
    const routes = parseRoutes(readFileSync(new URL('../../fixtures/raw/proc_net_route/vogo_cloud_vm_wan_10_docker0_tabs.txt', import.meta.url), 'utf8'));
    expect(reserveNetworks({ wifi: AP }, context({ routes })).wifi!.ipv4Network).toBe('192.168.128.0/24');
    expect(reserveNetworks({ wifi: AP }, context({ pool: '172.30.0.0/16' })).wifi!.ipv4Network, 'a pool set by the setting').toBe('172.30.0.0/24');
  });

  it("skips the subnets other chutes hold and the host's networks", () => {
    const other = reserveNetworks({ wifi: AP }, context({ chute: 'other' }));
    const routes = parseRoutes(`${ROUTES}eth1\t0000800A\t00000000\t0001\t0\t0\t0\t0000FFFF\t0\t0\t0\n`);
    const { wifi } = reserveNetworks({ wifi: AP }, context({ others: new Map([['other', other]]), routes }));
    expect(other.wifi!.ipv4Network).toBe('10.128.0.0/24');
    expect(wifi!.ipv4Network, '10.128.0.0/16 is routed on eth1, 10.128.0.0/24 is the other chute’s').toBe('10.129.0.0/24');
    expect(wifi!.hostInterface).not.toBe(other.wifi!.hostInterface);
  });

  it('gives a requested ipv4_network when it is free, and refuses one that overlaps the LAN, another chute or an earlier entry, naming the field', () => {
    expect(reserveNetworks({ wifi: { ...AP, ipv4_network: '10.0.5.0/24' } }, context()).wifi).toMatchObject({
      ipv4Network: '10.0.5.0/24',
      gateway: '10.0.5.1',
      chuteAddress: '10.0.5.2',
    });
    const other = reserveNetworks({ wifi: { ...AP, ipv4_network: '10.0.5.0/24' } }, context({ chute: 'other' }));
    const errors = refusal(() =>
      reserveNetworks(
        {
          lan: { ...AP, intfName: 'wlan0', ipv4_network: '192.168.1.0/25' },
          clash: { ...AP, intfName: 'wlan1', ipv4_network: '10.0.5.128/25' },
          first: { ...AP, intfName: 'wlan2', ipv4_network: '10.9.0.0/16' },
          second: { ...AP, intfName: 'wlan3', ipv4_network: '10.9.3.0/24' },
          tiny: { ...AP, intfName: 'wlan4', ipv4_network: '10.7.0.0/31' },
        },
        context({ others: new Map([['other', other]]) }),
      ),
    );
    expect(errors).toEqual([
      { path: 'net.lan.ipv4_network', message: "192.168.1.0/25 overlaps 192.168.1.0/24, the host's network on br-lan" },
      { path: 'net.clash.ipv4_network', message: '10.0.5.128/25 overlaps 10.0.5.0/24, network wifi of chute other' },
      { path: 'net.second.ipv4_network', message: '10.9.3.0/24 overlaps 10.9.0.0/16, network first of this chute' },
      { path: 'net.tiny.ipv4_network', message: "10.7.0.0/31 is too small: a chute network needs a /30 or larger, for the host's address and the chute's" },
    ]);
  });

  it('names a VLAN network after the LAN interface and its tag, and refuses a tag another chute or the host uses', () => {
    const vlan = { type: 'vlan', intfName: 'vlan0', vlan_id: 20, dhcp: {} };
    expect(reserveNetworks({ guests: vlan }, context()).guests).toMatchObject({
      hostInterface: 'br-lan.20',
      vlanId: 20,
      hostapdControl: null,
      ipv4Network: '10.128.0.0/24',
    });
    const other = reserveNetworks({ guests: vlan }, context({ chute: 'other' }));
    expect(refusal(() => reserveNetworks({ mine: vlan }, context({ others: new Map([['other', other]]) })))).toEqual([
      { path: 'net.mine.vlan_id', message: 'VLAN 20 is taken by network guests of chute other' },
    ]);
    expect(refusal(() => reserveNetworks({ mine: vlan }, context({ interfaces: ['br-lan', 'br-lan.20'] })))).toEqual([
      { path: 'net.mine.vlan_id', message: 'VLAN 20 is in use on the host (br-lan.20)' },
    ]);
  });

  it('refuses a VLAN network, naming its type, on a device without the LAN interface or without 802.1Q, unless a lab link stands in', () => {
    const vlan = { type: 'vlan', intfName: 'vlan0', vlan_id: 20 };
    expect(refusal(() => reserveNetworks({ guests: vlan }, context({ interfaces: ['lo', 'eth0'] })))).toEqual([
      { path: 'net.guests.type', message: 'a VLAN network is tagged on the LAN interface br-lan, and this device has none' },
    ]);
    expect(refusal(() => reserveNetworks({ guests: vlan }, context({ dot1q: false })))).toEqual([
      { path: 'net.guests.type', message: "a VLAN network needs 802.1Q, and this device's kernel has none (no 8021q loaded, built in or installed)" },
    ]);
    expect(reserveNetworks({ guests: vlan }, context({ interfaces: ['lo', 'eth0'], dot1q: null })).guests!.hostInterface).toBe('br-lan.20');
  });

  it('gives a monitor interface a vmon name and no subnet, and a network without dhcp no lease file', () => {
    const { mon, plain } = reserveNetworks({ mon: { type: 'wifi', mode: 'monitor', intfName: 'mon0' }, plain: { type: 'wifi', intfName: 'wlan0' } }, context());
    expect(mon).toMatchObject({
      hostInterface: expect.stringMatching(/^vmon[0-9a-f]{4}$/),
      ipv4Network: null,
      gateway: null,
      hostapdControl: null,
      leaseFile: null,
    });
    expect(plain).toMatchObject({ ipv4Network: '10.128.0.0/24', leaseFile: null });
  });

  it("gives Wi-Fi networks a radio: an access point by requests.hwmode, a monitor interface one of its own that no other chute's network holds", () => {
    const mine = reserveNetworks({ wifi: { ...AP, requests: { hwmode: '11g' } }, vlan: { type: 'vlan', intfName: 'eth1', vlan_id: 20 } }, context());
    expect(mine.wifi!.radio).toBe('pci-wifi-1');
    expect(mine.vlan!.radio).toBeNull();
    const monitor = reserveNetworks(
      { mon: { type: 'wifi', mode: 'monitor', intfName: 'mon0' } },
      context({ chute: 'other', others: new Map([['hello', mine]]) }),
    );
    expect(monitor.mon!.radio, 'pci-wifi-1 serves an access point').toBe('pci-wifi-0');
    expect(
      refusal(() => reserveNetworks({ wifi: { ...AP, requests: { hwmode: '11a' } } }, context({ chute: 'third', others: new Map([['other', monitor]]) }))),
    ).toEqual([
      {
        path: 'net.wifi.requests.hwmode',
        message: 'no radio serves 11a (5 GHz): pci-wifi-0 is given to network mon of chute other (a monitor interface); pci-wifi-1 is on 2.4 GHz',
      },
    ]);
    expect(reserveNetworks({ wifi: AP }, context({ radios: null })).wifi!.radio, 'a lab link stands in for the radios').toBeNull();
  });

  it('refuses a monitor interface where a lab link stands in for the radios, naming its mode: its radio cannot move into the chute', () => {
    expect(refusal(() => reserveNetworks({ wifi: AP, mon: { type: 'wifi', mode: 'monitor', intfName: 'mon0' } }, context({ radios: null })))).toEqual([
      {
        path: 'net.mon.mode',
        message: 'a monitor interface takes a radio of its own, and this device has none: a lab link (--lab-link) stands in for its radios',
      },
    ]);
  });

  it('takes the next name when the hashed one is in use on the host', () => {
    const first = reserveNetworks({ wifi: AP }, context()).wifi!.hostInterface;
    const next = reserveNetworks({ wifi: AP }, context({ interfaces: ['eth0', first] })).wifi!.hostInterface;
    expect(Number.parseInt(next.slice(5), 16)).toBe((Number.parseInt(first.slice(5), 16) + 1) & 0xffff);
  });

  it('keeps the reservation of an entry an update leaves unchanged, its interface and route included, and reserves anew one that changed', () => {
    const previous = reserveNetworks({ wifi: AP, guests: { ...AP, intfName: 'wlan1' } }, context());
    const routes = parseRoutes(`${ROUTES}${previous.wifi!.hostInterface}\t0000800A\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n`);
    const interfaces = ['eth0', 'br-lan', previous.wifi!.hostInterface, previous.guests!.hostInterface];
    const previousNet = { wifi: AP, guests: { ...AP, intfName: 'wlan1' } };
    const next = reserveNetworks(
      { wifi: { ...AP, ssid: 'renamed' }, guests: { ...AP, intfName: 'wlan1', ipv4_network: '10.50.0.0/24' } },
      context({ previous, previousNet, routes, interfaces }),
    );
    expect(next.wifi).toEqual(previous.wifi);
    expect(next.guests).toMatchObject({ hostInterface: previous.guests!.hostInterface, ipv4Network: '10.50.0.0/24' });
    expect(
      refusal(() => reserveNetworks({ wifi: AP, guests: { ...AP, intfName: 'wlan1', ipv4_network: '10.128.0.0/24' } }, context({ previous, previousNet }))),
    ).toEqual([{ path: 'net.guests.ipv4_network', message: '10.128.0.0/24 overlaps 10.128.0.0/24, network wifi of this chute' }]);
  });

  it('gives a kept access point that holds no radio (a recorded cache names none) one when its entry changes, and none when it is sent back as it was', () => {
    const previous = { wifi: { ...reserveNetworks({ wifi: AP }, context()).wifi!, radio: null } };
    const previousNet = { wifi: { ...AP, key: 'hunter22' } };
    const edited = reserveNetworks({ wifi: { ...AP, key: '[redacted]', ssid: 'renamed' } }, context({ previous, previousNet }));
    expect(edited.wifi).toEqual({ ...previous.wifi, radio: 'pci-wifi-0' });
    const putBack = reserveNetworks({ wifi: { ...AP, key: '[redacted]' } }, context({ previous, previousNet }));
    expect(putBack.wifi, 'the access point runs on as it was').toEqual(previous.wifi);
  });

  it('refuses a network when the pool has no free /24 left, naming the entry', () => {
    const full = reserveNetworks({ a: AP }, context({ chute: 'other', pool: '10.10.0.0/24' }));
    expect(refusal(() => reserveNetworks({ wifi: AP }, context({ pool: '10.10.0.0/24', others: new Map([['other', full]]) })))).toEqual([
      { path: 'net.wifi', message: 'no /24 of the chute subnet pool 10.10.0.0/24 is free' },
    ]);
  });
});

describe('recordedReservations', () => {
  it('reads the reservations a chute cache records, and leaves out an entry without a host interface', () => {
    const wifi: NetworkReservation = {
      hostInterface: 'vwlan0001',
      ipv4Network: '10.128.0.0/24',
      gateway: '10.128.0.1',
      chuteAddress: '10.128.0.2',
      hostapdControl: '/run/h/vwlan0001',
      leaseFile: null,
      vlanId: null,
      radio: 'pci-wifi-1',
    };
    expect(recordedReservations({ networks: { wifi, bare: { leaseFile: '/x' } } })).toEqual({ wifi });
  });
});
