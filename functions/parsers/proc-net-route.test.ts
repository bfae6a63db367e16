import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cidrText, ipv4Text } from './ipv4.ts';
import { parseRoutes } from './proc-net-route.ts';

/** A recorded /proc/net/route (fixtures/raw/proc_net_route/, provenance in fixtures/raw/SOURCES.tsv). */
const recorded = (name: string) => readFileSync(new URL(`../../fixtures/raw/proc_net_route/${name}`, import.meta.url), 'utf8');

/** Each route as `interface network via gateway`, for reading at a glance. */
const summary = (text: string) =>
  parseRoutes(text).map((r) => `${r.interface} ${cidrText(r.destination)}${r.gateway === 0 ? '' : ` via ${ipv4Text(r.gateway)}`}`);

describe('/proc/net/route', () => {
  it("reads each route's network from the kernel's byte order, skipping the header", () => {
    expect(summary(recorded('vogo_cloud_vm_wan_10_docker0_tabs.txt'))).toEqual([
      'eth0 0.0.0.0/0 via 10.104.255.254',
      'eth0 10.104.0.0/16',
      'eth0 169.254.0.0/16',
      'eth0 169.254.169.254/32 via 10.104.102.203',
      'docker0 172.17.0.0/16',
    ]);
  });

  it('keeps every default route and a route with no gateway', () => {
    expect(summary(recorded('portmap_test_two_defaults_tun0.txt'))).toEqual([
      'wlan0 0.0.0.0/0 via 192.168.1.1',
      'wlan0 192.168.1.0/24',
      'eth0 0.0.0.0/0 via 192.168.1.254',
      'eth0 0.0.0.0/0 via 192.168.1.1',
      'docker0 172.17.0.0/16',
      'tun0 0.0.0.0/0',
    ]);
    expect(parseRoutes(recorded('portmap_test_two_defaults_tun0.txt')).every((route) => route.up)).toBe(true);
  });

  it('skips lines that do not fit: a mask with gaps, too few columns, text that is not hex', () => {
    const text =
      'Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n' +
      'eth0\t000200C0\t00000000\t0001\t0\t0\t0\t00FF00FF\t0\t0\t0\n' +
      'eth0\t000200C0\t00000000\t0001\n' +
      'eth0\t0002zzC0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n' +
      'eth1\t000200C0\t00000000\t0000\t0\t0\t0\t00FFFFFF\t0\t0\t0\n';
    expect(parseRoutes(text)).toEqual([{ interface: 'eth1', destination: { network: 3221225984, broadcast: 3221226239, prefix: 24 }, gateway: 0, up: false }]);
  });
});
