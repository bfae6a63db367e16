import { describe, expect, it } from 'vitest';
import type { StoredChute } from '../core/device/index.ts';
import type { HostConfig } from './host-config.ts';
import { checkHostConfig } from './host-config-body.ts';
import { renderPdconf, uciName, uciQuote } from './uci.ts';

const HEADER = "# Rendered by chutebox (pdconf) from the host configuration and the chutes' networks; edits here are overwritten.\n\n";

/** A router's host configuration: two LAN ports, a DHCP WAN, two radios, one access point on the LAN. */
const CONFIG: HostConfig = {
  firewall: { defaults: { input: 'ACCEPT', output: 'ACCEPT', forward: 'REJECT', syn_flood: 1 } },
  lan: { interfaces: ['eth1', 'eth2'], proto: 'static', ipaddr: '192.168.1.1', netmask: '255.255.255.0', dhcp: { start: 100, limit: 150, leasetime: '12h' } },
  wan: { interface: 'eth0', proto: 'dhcp' },
  wifi: [
    { id: 'pci-wifi-0', channel: 36, hwmode: '11a', htmode: 'VHT80' },
    { id: 'pci-wifi-1', channel: 1, hwmode: '11g', htmode: 'HT20' },
  ],
  'wifi-interfaces': [{ device: 'pci-wifi-1', ssid: "Bob's net", encryption: 'psk2', key: 'correct horse' }],
};

/** The default scenario's chutes: a 2.4 GHz access point, a VLAN with DHCP and DNS, a monitor interface. */
const CHUTES: StoredChute[] = [
  {
    name: 'hotspot',
    record: {},
    config: {
      net: {
        survey: { type: 'wifi', intfName: 'mon0', mode: 'monitor' },
        staff: { type: 'vlan', intfName: 'eth1', vlan_id: 20, dhcp: { start: 100, limit: 50, lease: '12h' }, dns: ['9.9.9.9', '149.112.112.112'] },
      },
    },
    cache: {
      networks: { staff: { hostInterface: 'br-lan.20', ipv4Network: '192.168.130.0/24', gateway: '192.168.130.1' }, survey: { hostInterface: 'phy0-mon0' } },
    },
  },
  {
    name: 'hello-world',
    record: {},
    config: {
      net: {
        wifi: {
          type: 'wifi',
          intfName: 'wlan0',
          ssid: 'hello-world',
          key: 'chutebox-demo',
          dhcp: { start: 100, limit: 50, leasetime: '2h' },
          options: { isolate: true, maxassoc: 32 },
          requests: { hwmode: '11g' },
        },
      },
    },
    cache: { networks: { wifi: { hostInterface: 'phy1-ap1', ipv4Network: '192.168.128.0/24', gateway: '192.168.128.1' } } },
  },
];

describe('renderPdconf', () => {
  it('renders network from the host configuration alone, exactly: the runtime makes the chute networks', () => {
    expect(renderPdconf(CONFIG, CHUTES).network.text).toBe(
      `${HEADER}config interface 'loopback'
\toption device 'lo'
\toption proto 'static'
\toption ipaddr '127.0.0.1'
\toption netmask '255.0.0.0'

config device 'br_lan'
\toption name 'br-lan'
\toption type 'bridge'
\tlist ports 'eth1'
\tlist ports 'eth2'

config interface 'lan'
\toption device 'br-lan'
\toption proto 'static'
\toption ipaddr '192.168.1.1'
\toption netmask '255.255.255.0'

config interface 'wan'
\toption device 'eth0'
\toption proto 'dhcp'
`,
    );
  });

  it("renders wireless: the radios and the host's access point, and none of the chutes' (the runtime makes those)", () => {
    expect(renderPdconf(CONFIG, CHUTES).wireless.text).toBe(
      `${HEADER}config wifi-device 'pci_wifi_0'
\toption type 'mac80211'
\toption band '5g'
\toption channel '36'
\toption hwmode '11a'
\toption htmode 'VHT80'

config wifi-device 'pci_wifi_1'
\toption type 'mac80211'
\toption band '2g'
\toption channel '1'
\toption hwmode '11g'
\toption htmode 'HT20'

config wifi-iface 'wifinet0'
\toption device 'pci_wifi_1'
\toption mode 'ap'
\toption network 'lan'
\toption ssid 'Bob'\\''s net'
\toption encryption 'psk2'
\toption key 'correct horse'
`,
    );
  });

  it("accepts the configuration ParaDrop generates, and renders its radios, `device` and `managed` mode as OpenWrt's", () => {
    // ParaDrop's hostconfig.py default for a two-radio router, as its GET answers it.
    const paradrop = checkHostConfig({
      firewall: { defaults: { input: 'ACCEPT', output: 'ACCEPT', forward: 'ACCEPT' } },
      lan: {
        interfaces: ['eth1'],
        proto: 'static',
        ipaddr: '10.0.0.1',
        netmask: '255.255.255.0',
        dhcp: { start: 100, limit: 100, leasetime: '12h' },
        firewall: { defaults: { conntrack: '1', forward: 'ACCEPT', input: 'ACCEPT', output: 'ACCEPT' }, forwarding: { wan: true } },
      },
      wan: { interface: 'eth0', proto: 'dhcp', firewall: { defaults: { conntrack: '1', forward: 'ACCEPT', input: 'ACCEPT', masq: '1', output: 'ACCEPT' } } },
      wifi: [
        { id: 'pci-wifi-0', channel: 1, hwmode: '11g', htmode: 'HT40+', short_gi_40: true },
        { id: 'pci-wifi-1', channel: 36, hwmode: '11a', htmode: 'VHT80' },
      ],
      'wifi-interfaces': [
        { device: 'pci-wifi-0', ssid: 'ParaDrop', mode: 'ap', network: 'lan', ifname: 'wlan0' },
        { device: 'pci-wifi-1', ssid: 'upstream', mode: 'managed', encryption: 'psk2', key: 'upstream-passphrase' },
      ],
      system: { autoUpdate: true, chutePrefixSize: 24, chuteSubnetPool: '192.168.128.0/17', onMissingWiFi: 'warn' },
      telemetry: { enabled: true, interval: 60 },
      zerotier: { enabled: false, networks: [] },
    });
    const blocks = renderPdconf(paradrop, []).wireless.text.split('\n\n');
    expect(blocks.find((block) => block.startsWith("config wifi-device 'pci_wifi_0'"))).toContain("\toption htmode 'HT40+'\n\toption short_gi_40 '1'");
    expect(blocks.find((block) => block.startsWith("config wifi-iface 'wifinet0'"))).toBe(
      "config wifi-iface 'wifinet0'\n\toption device 'pci_wifi_0'\n\toption mode 'ap'\n\toption network 'lan'\n\toption ssid 'ParaDrop'\n\toption encryption 'none'\n\toption ifname 'wlan0'",
    );
    expect(blocks.find((block) => block.startsWith("config wifi-iface 'wifinet1'"))?.trimEnd()).toBe(
      "config wifi-iface 'wifinet1'\n\toption device 'pci_wifi_1'\n\toption mode 'sta'\n\toption network 'wan'\n\toption ssid 'upstream'\n\toption encryption 'psk2'\n\toption key 'upstream-passphrase'",
    );
  });

  it("renders dhcp: the LAN range and the WAN ignored, and no chute network's (the runtime runs their dnsmasq)", () => {
    expect(renderPdconf(CONFIG, CHUTES).dhcp.text).toBe(
      `${HEADER}config dhcp 'lan'
\toption interface 'lan'
\toption start '100'
\toption limit '150'
\toption leasetime '12h'

config dhcp 'wan'
\toption interface 'wan'
\toption ignore '1'
`,
    );
  });

  it("renders firewall: the defaults (unknown scalar fields too), LAN and WAN zones, and a chutes zone of the chute networks' host interfaces that may reach only the WAN", () => {
    expect(renderPdconf(CONFIG, CHUTES).firewall.text).toBe(
      `${HEADER}config defaults 'defaults'
\toption input 'ACCEPT'
\toption output 'ACCEPT'
\toption forward 'REJECT'
\toption syn_flood '1'

config zone 'lan'
\toption name 'lan'
\tlist network 'lan'
\toption input 'ACCEPT'
\toption output 'ACCEPT'
\toption forward 'ACCEPT'

config zone 'wan'
\toption name 'wan'
\tlist network 'wan'
\toption input 'REJECT'
\toption output 'ACCEPT'
\toption forward 'REJECT'
\toption masq '1'
\toption mtu_fix '1'

config forwarding 'lan_wan'
\toption src 'lan'
\toption dest 'wan'

config zone 'chutes'
\toption name 'chutes'
\tlist device 'br-lan.20'
\tlist device 'phy1-ap1'
\toption input 'REJECT'
\toption output 'ACCEPT'
\toption forward 'REJECT'

config forwarding 'chutes_wan'
\toption src 'chutes'
\toption dest 'wan'

config rule 'chutes_dhcp'
\toption name 'Allow-DHCP-chutes'
\toption src 'chutes'
\toption proto 'udp'
\toption dest_port '67-68'
\toption target 'ACCEPT'

config rule 'chutes_dns'
\toption name 'Allow-DNS-chutes'
\toption src 'chutes'
\toption proto 'tcp udp'
\toption dest_port '53'
\toption target 'ACCEPT'
`,
    );
  });

  it("lists each file's sections in file order, as pdconf reports them", () => {
    const files = renderPdconf(CONFIG, CHUTES);
    expect(files.network.sections).toEqual([
      { type: 'interface', name: 'loopback' },
      { type: 'device', name: 'br_lan' },
      { type: 'interface', name: 'lan' },
      { type: 'interface', name: 'wan' },
    ]);
    expect(files.wireless.sections.map((section) => `${section.type} ${section.name}`)).toEqual([
      'wifi-device pci_wifi_0',
      'wifi-device pci_wifi_1',
      'wifi-iface wifinet0',
    ]);
  });

  it('gives the same text whatever order the chutes come in', () => {
    expect(renderPdconf(CONFIG, [...CHUTES].reverse())).toEqual(renderPdconf(CONFIG, CHUTES));
  });

  it('renders no WAN sections without a wan, ignores DHCP on a LAN without dhcp, and has no chutes zone without chute networks', () => {
    const { wan: _, ...rest } = CONFIG;
    const files = renderPdconf(
      { ...rest, lan: { interfaces: [], proto: 'static', ipaddr: '10.0.0.1', netmask: '255.255.0.0' }, wifi: [], 'wifi-interfaces': [] },
      [],
    );
    expect(files.network.text).not.toContain("'wan'");
    expect(files.network.text).not.toContain('list ports');
    expect(files.dhcp.text).toBe(`${HEADER}config dhcp 'lan'\n\toption interface 'lan'\n\toption ignore '1'\n`);
    expect(files.firewall.sections.map((section) => section.name)).toEqual(['defaults', 'lan']);
    expect(files.wireless.text).toBe(HEADER);
  });

  it('renders a static WAN with its gateway and DNS, and a PPPoE WAN with its credentials', () => {
    const wan = (config: HostConfig['wan']) =>
      renderPdconf({ ...CONFIG, wan: config }, [])
        .network.text.split('\n\n')
        .find((block) => block.startsWith("config interface 'wan'"))
        ?.trimEnd();
    expect(wan({ interface: 'eth0', proto: 'static', ipaddr: '203.0.113.2', netmask: '255.255.255.0', gateway: '203.0.113.1', dns: ['9.9.9.9'] })).toBe(
      "config interface 'wan'\n\toption device 'eth0'\n\toption proto 'static'\n\toption ipaddr '203.0.113.2'\n\toption netmask '255.255.255.0'\n\toption gateway '203.0.113.1'\n\tlist dns '9.9.9.9'",
    );
    expect(wan({ interface: 'eth0', proto: 'pppoe', username: 'me@isp', password: "it's secret", mtu: 1492 })).toBe(
      "config interface 'wan'\n\toption device 'eth0'\n\toption proto 'pppoe'\n\toption username 'me@isp'\n\toption password 'it'\\''s secret'\n\toption mtu '1492'",
    );
  });

  it('leaves a chute network the runtime has not reserved yet, and a monitor interface, out of the chutes zone', () => {
    const chute: StoredChute = {
      name: 'lab',
      record: {},
      config: { net: { v: { type: 'vlan', intfName: 'eth1', vlan_id: 7 }, mon: { type: 'wifi', mode: 'monitor', intfName: 'mon0' } } },
      cache: { networks: { mon: { hostInterface: 'vmon0001', radio: 'pci-wifi-0' } } },
    };
    expect(renderPdconf(CONFIG, [chute]).firewall.sections.map((section) => section.name)).toEqual(['defaults', 'lan', 'wan', 'lan_wan']);
  });
});

describe('uciQuote and uciName', () => {
  it('quotes values in single quotes, escaping a quote inside, and writes booleans as 1 and 0', () => {
    expect(uciQuote("it's")).toBe("'it'\\''s'");
    expect(uciQuote(false)).toBe("'0'");
    expect(uciQuote(6)).toBe("'6'");
  });

  it('turns every character UCI cannot hold in a section name into _', () => {
    expect(uciName('pci-wifi-0')).toBe('pci_wifi_0');
    expect(uciName('hello.world-1')).toBe('hello_world_1');
  });
});
