import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { StoredChute } from '../../functions/core/device/index.ts';
import { fileExists, useTempDir } from '../../test/support/temp-dir.ts';
import { writeScript } from '../../test/support/tool-scripts.ts';
import { apInterfaceArgs, chuteNetworks, linkArgs } from './chute-networks.ts';

const temp = useTempDir('chutebox-chute-networks-unit-');

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

  it('makes an access point an interface of its radio with iw, and refuses a VLAN interface named otherwise', () => {
    expect(apInterfaceArgs('phy1', 'vwlan1a2b')).toEqual(['phy', 'phy1', 'interface', 'add', 'vwlan1a2b', 'type', '__ap']);
    expect(() => linkArgs('access-point', { hostInterface: 'vwlan1a2b', vlanId: null }, null)).toThrow(/on its radio/);
    expect(() => linkArgs('vlan', { hostInterface: 'vlan20', vlanId: 20 }, null)).toThrow(/<LAN interface>.<VLAN ID>/);
  });
});

/**
 * Radios cannot exist on the machines the tests run on: `iw`, `ip`, `nsenter`, `nft` and hostapd are
 * stand-ins that log each command line and keep a list of the interfaces they "made", so that what
 * serve asks of a radio can be read back in order.
 */
async function standIns(name: string) {
  const dir = await temp.folder(name);
  const log = path.join(dir, 'commands.log');
  const present = path.join(dir, 'interfaces');
  const body = (name: string, logic: string) => `echo "${name} $*" >> '${log}'\n${logic}\nexit 0`;
  const tools = {
    iw: await writeScript(dir, 'iw', body('iw', `case "$3 $4" in "interface add") echo "$5" >> '${present}';; esac`)),
    ip: await writeScript(
      dir,
      'ip',
      body(
        'ip',
        `case "$1 $2" in "link show") grep -qx "$4" '${present}' 2>/dev/null; exit $?;; "link add") echo "$6" >> '${present}';; esac
case "$1 $2 $5" in "link set name") echo "$6" >> '${present}';; esac`,
      ),
    ),
    nsenter: await writeScript(dir, 'nsenter', `echo "nsenter $1 $2 $3" >> '${log}'\nshift 3\nexec "$@"`),
    nft: await writeScript(dir, 'nft', body('nft', '')),
    iptables: path.join(dir, 'no-iptables'),
    hostapd: await writeScript(dir, 'hostapd', `echo "hostapd $*" >> '${log}'\nexec sleep 60`),
    dnsmasq: path.join(dir, 'no-dnsmasq'),
    timeoutMs: 5000,
  };
  const commands = async () => (await readFile(log, 'utf8').catch(() => '')).split('\n').filter((line) => line !== '' && !line.startsWith('nsenter'));
  return { tools, commands };
}

/** A chute with an access point asking for 2.4 GHz and a monitor interface, as reserved on a two-radio router. */
function radioChute(runDir: string): StoredChute {
  return {
    name: 'lab',
    record: { state: 'running' },
    config: {
      net: {
        wifi: { type: 'wifi', intfName: 'wlan0', ssid: 'Lab', key: 'password1', requests: { hwmode: '11g' } },
        mon: { type: 'wifi', mode: 'monitor', intfName: 'mon0' },
      },
    },
    cache: {
      networks: {
        wifi: {
          hostInterface: 'vwlan0001',
          ipv4Network: '10.128.0.0/24',
          gateway: '10.128.0.1',
          chuteAddress: '10.128.0.2',
          hostapdControl: `${runDir}/hostapd/vwlan0001`,
          radio: 'pci-wifi-1',
        },
        mon: { hostInterface: 'vmon0002', radio: 'pci-wifi-0' },
      },
    },
  };
}

const RADIOS = {
  'pci-wifi-0': { phy: 'phy0', settings: { id: 'pci-wifi-0', channel: 36, hwmode: '11a' as const, htmode: 'VHT80' as const } },
  'pci-wifi-1': { phy: 'phy1', settings: { id: 'pci-wifi-1', channel: 6, hwmode: '11g' as const, htmode: 'HT20' as const, country: 'DE' } },
};

describe('chuteNetworks on a device with radios', () => {
  it('makes the access point an interface of its radio with hostapd on nl80211 and the radio’s settings, forgets the MAC the host knew for the chute’s address, and moves the monitor radio into the chute', async () => {
    const { tools, commands } = await standIns('made');
    const runDir = await temp.folder('made-run');
    let forwardingTurnedOn = 0;
    const networks = chuteNetworks({
      runDir,
      labLink: null,
      radio: async (id) => RADIOS[id as keyof typeof RADIOS] ?? null,
      tools,
      forwarding: async () => void forwardingTurnedOn++,
    });
    const chute = radioChute(runDir);
    const notes: string[] = [];
    try {
      await networks.up(chute, async (text) => void notes.push(text), 4242);
      const made = await commands();
      expect(made.filter((line) => !line.startsWith('nft'))).toEqual([
        'iw phy phy1 interface add vwlan0001 type __ap',
        'ip address replace 10.128.0.1/24 dev vwlan0001',
        'ip link set dev vwlan0001 up',
        `hostapd ${runDir}/hostapd/vwlan0001.conf`,
        'ip link show dev wlan0',
        'ip link add link vwlan0001 name vwlan0001c type macvlan mode bridge',
        'ip link set dev vwlan0001c netns 4242',
        'ip link set dev vwlan0001c name wlan0',
        'ip address add 10.128.0.2/24 dev wlan0',
        'ip link set dev wlan0 up',
        'ip neigh flush to 10.128.0.2 dev vwlan0001',
        'ip link show dev mon0',
        'iw phy phy0 set netns 4242',
        'iw phy phy0 interface add mon0 type monitor',
        'ip link set dev mon0 up',
      ]);
      expect(forwardingTurnedOn).toBe(1);
      const conf = await readFile(path.join(runDir, 'hostapd', 'vwlan0001.conf'), 'utf8');
      expect(conf).toMatch(/^driver=nl80211$/m);
      expect(conf).toMatch(/^hw_mode=g$/m);
      expect(conf).toMatch(/^channel=6$/m);
      expect(conf).toMatch(/^country_code=DE$/m);
      expect(conf).toMatch(/^ssid=Lab$/m);
      expect(conf).not.toMatch(/eap/);
      expect(notes).toContain('made interface vwlan0001 on radio pci-wifi-1 (phy1)');
      expect(notes).toContain('moved radio pci-wifi-0 (phy0) into the chute, with its monitor interface mon0');

      const before = made.length;
      await networks.down(chute, async (text) => void notes.push(text), 'remove', 4242);
      const removed = (await commands()).slice(before).filter((line) => !line.startsWith('nft'));
      expect(removed, 'the chute’s interfaces leave first, the radio goes back to serve’s namespace').toEqual([
        'ip link delete dev wlan0',
        'ip link show dev mon0',
        'iw dev mon0 del',
        `iw phy phy0 set netns ${process.pid}`,
      ]);
      expect(notes).toContain('moved radio pci-wifi-0 (phy0) back from the chute');
      expect(notes).toContain('stopped hostapd for network wifi');
    } finally {
      await networks.down(chute, async () => {}, 'remove');
    }
  });

  it('fails the change naming the radio when the device no longer has it, and leaves nothing of the network made', async () => {
    const { tools, commands } = await standIns('missing');
    const runDir = await temp.folder('missing-run');
    const networks = chuteNetworks({ runDir, labLink: null, radio: async () => null, tools, forwarding: async () => {} });
    await expect(networks.up(radioChute(runDir), async () => {}, 4242)).rejects.toThrow(
      'network wifi: radio pci-wifi-1 is not on this device or not in its host configuration',
    );
    expect((await commands()).filter((line) => line.startsWith('iw') || line.startsWith('hostapd') || line.startsWith('ip link add'))).toEqual([]);
  });
});

/** A chute of the lab (`--lab-link`) with an access point `wifi` whose hostapd and dnsmasq files are in `runDir`. */
function labChute(name: string, runDir: string, hostInterface: string): StoredChute {
  return {
    name,
    record: { state: 'stopped' },
    config: { net: { wifi: { type: 'wifi', intfName: 'wlan0', ssid: 'Lab', key: 'password1', dhcp: {} } } },
    cache: {
      networks: {
        wifi: { hostInterface, hostapdControl: `${runDir}/hostapd/${hostInterface}`, leaseFile: `${runDir}/dnsmasq/${name}-wifi.leases` },
      },
    },
  };
}

/** Writes the files hostapd and dnsmasq keep for a lab chute's network (the control socket as a plain file), and answers their paths. */
async function networkFiles(chute: StoredChute): Promise<string[]> {
  const wifi = (chute.cache.networks as Record<string, Record<string, string>>).wifi!;
  const files = [`${wifi.hostapdControl}.conf`, `${wifi.hostapdControl}.eap_users`, wifi.hostapdControl!, wifi.leaseFile!];
  for (const file of files) {
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, file.endsWith('.leases') ? '1700000000 02:00:00:00:00:01 10.128.0.100 phone *\n' : '');
  }
  return files;
}

describe('chuteNetworks: what a network keeps in the run folder', () => {
  it("keeps a network's DHCP leases when the chute stops, removes them when it goes, and hostapd's files either way", async () => {
    const { tools } = await standIns('leases');
    const runDir = await temp.folder('leases-run');
    const networks = chuteNetworks({ runDir, labLink: 'lab0', radio: async () => null, tools, forwarding: async () => {} });
    const chute = labChute('lab', runDir, 'vwlan0003');
    const [conf, eapUsers, control, leases] = await networkFiles(chute);
    const notes: string[] = [];
    await networks.down(chute, async (text) => void notes.push(text), 'keep');
    expect({ conf: await fileExists(conf!), eapUsers: await fileExists(eapUsers!), control: await fileExists(control!) }).toEqual({
      conf: false,
      eapUsers: false,
      control: false,
    });
    expect(await fileExists(leases!), 'a stopped chute keeps its leases, as dnsmasq on a router does').toBe(true);
    await networks.down(chute, async (text) => void notes.push(text), 'remove');
    expect(await fileExists(leases!)).toBe(false);
    expect(notes).toEqual(['removed the leases of network wifi']);
  });

  it('removes no file a chute cache names outside the run folder', async () => {
    const { tools } = await standIns('outside');
    const runDir = await temp.folder('outside-run');
    const elsewhere = path.join(await temp.folder('outside-else'), 'precious');
    await writeFile(elsewhere, 'keep me\n');
    const networks = chuteNetworks({ runDir, labLink: 'lab0', radio: async () => null, tools, forwarding: async () => {} });
    const chute = labChute('lab', runDir, 'vwlan0004');
    (chute.cache.networks as Record<string, Record<string, string>>).wifi!.leaseFile = elsewhere;
    await networks.down(chute, async () => {}, 'remove');
    expect(await readFile(elsewhere, 'utf8')).toBe('keep me\n');
  });

  it('at start, removes the hostapd and dnsmasq files that no chute owns, and keeps those of a stopped chute', async () => {
    const { tools } = await standIns('sweep');
    const runDir = await temp.folder('sweep-run');
    const networks = chuteNetworks({ runDir, labLink: 'lab0', radio: async () => null, tools, forwarding: async () => {} });
    const stopped = labChute('kept', runDir, 'vwlan0005');
    const kept = await networkFiles(stopped);
    const gone = await networkFiles(labChute('deleted', runDir, 'vwlan0006'));
    expect((await networks.sweep([stopped])).sort()).toEqual(
      ['hostapd/vwlan0006', 'hostapd/vwlan0006.conf', 'hostapd/vwlan0006.eap_users', 'dnsmasq/deleted-wifi.leases'].sort(),
    );
    for (const file of kept) expect(await fileExists(file), file).toBe(true);
    for (const file of gone) expect(await fileExists(file), file).toBe(false);
  });
});
