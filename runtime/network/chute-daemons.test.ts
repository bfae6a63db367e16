import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AccessPointEntry, VlanEntry } from '../../functions/chutes/chute-config.ts';
import { findOnPath } from '../../test/support/dockerd.ts';
import { useTempDir } from '../../test/support/temp-dir.ts';
import { accessPointReservation } from '../../test/support/network-reservations.ts';
import { runTool } from '../tools/run.ts';
import { dnsmasqArgs, eapUserFile, hostapdConfig, type AccessPointRadio } from './chute-daemons.ts';

const reservation = accessPointReservation();
const radio24: AccessPointRadio = { kind: 'radio', hwmode: '11g', channel: 6 };
const ap = (fields: Partial<AccessPointEntry> = {}): AccessPointEntry => ({ type: 'wifi', intfName: 'wlan0', ssid: 'Free WiFi', ...fields });
/** The `key=value` lines of a configuration. */
const lines = (text: string) => text.replace(/\n$/, '').split('\n');

describe('hostapd.conf of an access point on a radio', () => {
  it('is open without a key: interface, nl80211, control socket folder, SSID, band and channel, no WPA', () => {
    expect(hostapdConfig(ap(), reservation, radio24)).toBe(
      [
        'interface=vwlan5d1e',
        'driver=nl80211',
        'ctrl_interface=/var/lib/chutebox/networks/hostapd',
        'ctrl_interface_group=0',
        'ssid=Free WiFi',
        'hw_mode=g',
        'channel=6',
        '',
      ].join('\n'),
    );
  });

  it('uses WPA2-PSK with CCMP and the passphrase for a key of 8 to 63 characters, written as is', () => {
    const text = hostapdConfig(ap({ key: ' pass#word "1" ' }), reservation, radio24);
    expect(lines(text).slice(-4)).toEqual(['wpa=2', 'wpa_key_mgmt=WPA-PSK', 'rsn_pairwise=CCMP', 'wpa_passphrase= pass#word "1" ']);
    expect(text).not.toContain('wpa_psk=');
  });

  it('gives a raw key of 64 hex digits as wpa_psk', () => {
    const key = 'a1B2'.repeat(16);
    const text = hostapdConfig(ap({ key }), reservation, radio24);
    expect(lines(text)).toContain(`wpa_psk=${key}`);
    expect(text).not.toContain('wpa_passphrase=');
  });

  it('turns hidden, isolate, maxassoc, nasid and RADIUS accounting into their hostapd settings', () => {
    const options = { hidden: true, isolate: true, maxassoc: 20, nasid: 'chute-hello', acct_server: '192.0.2.10', acct_secret: 's3cret', acct_interval: 300 };
    expect(lines(hostapdConfig(ap({ options }), reservation, radio24)).slice(7)).toEqual([
      'ignore_broadcast_ssid=1',
      'ap_isolate=1',
      'max_num_sta=20',
      'nas_identifier=chute-hello',
      'acct_server_addr=192.0.2.10',
      'acct_server_port=1813',
      'acct_server_shared_secret=s3cret',
      'radius_acct_interim_interval=300',
    ]);
  });

  it('writes nothing for hidden and isolate when they are false', () => {
    const text = hostapdConfig(ap({ options: { hidden: false, isolate: false } }), reservation, radio24);
    expect(text).not.toMatch(/ignore_broadcast_ssid|ap_isolate/);
  });

  it('sets up a 5 GHz 802.11ac radio on channel 36 with HT40+ and a country', () => {
    const radio: AccessPointRadio = { kind: 'radio', hwmode: '11ac', channel: 36, htmode: 'HT40+', country: 'DE' };
    expect(lines(hostapdConfig(ap(), reservation, radio)).slice(5)).toEqual([
      'country_code=DE',
      'ieee80211d=1',
      'hw_mode=a',
      'channel=36',
      'wmm_enabled=1',
      'ieee80211n=1',
      'ht_capab=[HT40+]',
      'ieee80211ac=1',
    ]);
  });

  it('picks the secondary channel of an unsigned 40 MHz width by the channel, as OpenWrt does', () => {
    const config = (channel: number, htmode: 'HT40' | 'VHT80', hwmode: '11n' | '11ac') =>
      hostapdConfig(ap(), reservation, { kind: 'radio', hwmode, channel, htmode });
    expect(config(40, 'VHT80', '11ac')).toContain('ht_capab=[HT40-]\n');
    expect(config(149, 'VHT80', '11ac')).toContain('ht_capab=[HT40+]\n');
    expect(config(1, 'HT40', '11n')).toContain('ht_capab=[HT40+]\n');
    expect(config(11, 'HT40', '11n')).toContain('ht_capab=[HT40-]\n');
    expect(hostapdConfig(ap(), reservation, { kind: 'radio', hwmode: '11n', channel: 6, htmode: 'HT20' })).not.toContain('ht_capab');
  });

  it('turns 802.11b, 802.11n and 802.11ax on 2.4 GHz into hw_mode b and g with their flags', () => {
    expect(lines(hostapdConfig(ap(), reservation, { kind: 'radio', hwmode: '11b', channel: 1 }))).toContain('hw_mode=b');
    const n = lines(hostapdConfig(ap(), reservation, { kind: 'radio', hwmode: '11n', channel: 11 }));
    expect(n).toEqual(expect.arrayContaining(['hw_mode=g', 'ieee80211n=1']));
    expect(n).not.toContain('ieee80211ac=1');
    const ax = lines(hostapdConfig(ap(), reservation, { kind: 'radio', hwmode: '11ax', channel: 1 }));
    expect(ax).toEqual(expect.arrayContaining(['hw_mode=g', 'ieee80211n=1', 'ieee80211ax=1']));
    expect(ax).not.toContain('ieee80211ac=1');
  });

  it('leaves the channel to hostapd (ACS, channel 0) for auto, in the band of the mode', () => {
    expect(lines(hostapdConfig(ap(), reservation, { kind: 'radio', hwmode: '11a', channel: 'auto' }))).toEqual(
      expect.arrayContaining(['hw_mode=a', 'channel=0']),
    );
    expect(lines(hostapdConfig(ap(), reservation, { kind: 'radio', hwmode: '11n', channel: 'auto', htmode: 'HT40' }))).toEqual(
      expect.arrayContaining(['hw_mode=g', 'channel=0', 'ieee80211n=1']),
    );
  });

  it('writes a non-ASCII SSID as hex (ssid2) with utf8_ssid, and one with spaces at its ends as hex alone', () => {
    const utf8 = lines(hostapdConfig(ap({ ssid: 'Café ☕' }), reservation, radio24));
    expect(utf8).toContain(`ssid2=${Buffer.from('Café ☕').toString('hex')}`);
    expect(utf8).toContain('utf8_ssid=1');
    expect(utf8.some((line) => line.startsWith('ssid='))).toBe(false);
    const spaced = lines(hostapdConfig(ap({ ssid: ' lab ' }), reservation, radio24));
    expect(spaced).toContain('ssid2=206c616220');
    expect(spaced).not.toContain('utf8_ssid=1');
  });
});

describe('hostapd.conf of the wired stand-in', () => {
  it('runs 802.1X with hostapd EAP server and the given user file, without radio or WPA settings', () => {
    const entry = ap({ key: 'password1', options: { hidden: true, isolate: true, maxassoc: 5 } });
    expect(hostapdConfig(entry, reservation, { kind: 'wired' }, '/var/lib/chutebox/networks/hostapd/vwlan5d1e.eap_users')).toBe(
      [
        'interface=vwlan5d1e',
        'driver=wired',
        'ctrl_interface=/var/lib/chutebox/networks/hostapd',
        'ctrl_interface_group=0',
        'ssid=Free WiFi',
        'ieee8021x=1',
        'eap_server=1',
        'eap_user_file=/var/lib/chutebox/networks/hostapd/vwlan5d1e.eap_users',
        '',
      ].join('\n'),
    );
  });

  it('has one EAP-MD5 user, chute, whose password is the key', () => {
    expect(eapUserFile(ap({ key: 'password1' }))).toBe('"chute" MD5 "password1"\n');
  });

  it('writes a key with a double quote as hex, since hostapd reads a quoted password up to the next quote', () => {
    expect(eapUserFile(ap({ key: 'say "hi"!' }))).toBe(`"chute" MD5 ${Buffer.from('say "hi"!').toString('hex')}\n`);
  });

  it('refuses an access point without a key, which has no EAP password', () => {
    expect(() => hostapdConfig(ap(), reservation, { kind: 'wired' }, '/tmp/users')).toThrow(/key is required on the wired stand-in/);
    expect(() => eapUserFile(ap())).toThrow(/key is required/);
  });

  it('refuses to run without the EAP user file', () => {
    expect(() => hostapdConfig(ap({ key: 'password1' }), reservation, { kind: 'wired' })).toThrow(/eapUserFile is required/);
  });
});

describe('hostapd.conf refuses', () => {
  it('a value with a line break or NUL, naming its field, so that no value adds a setting', () => {
    expect(() => hostapdConfig(ap({ options: { nasid: 'x\nwpa=0' } }), reservation, radio24)).toThrow(/options\.nasid must not contain a line break or NUL/);
    expect(() => hostapdConfig(ap({ options: { acct_server: '192.0.2.1', acct_secret: 'a\0b' } }), reservation, radio24)).toThrow(/options\.acct_secret/);
    expect(() => hostapdConfig(ap({ key: 'password1\r\nwpa=0' }), reservation, radio24)).toThrow(/^key must not contain/);
    expect(() => hostapdConfig(ap({ ssid: 'a\nb' }), reservation, radio24)).toThrow(/^ssid must not contain/);
    expect(() => hostapdConfig(ap({ key: 'password1' }), reservation, { kind: 'wired' }, '/tmp/users\nwpa=0')).toThrow(/^eapUserFile must not contain/);
  });

  it('a control socket not named after the interface, which hostapd would make elsewhere', () => {
    const elsewhere = { ...reservation, hostapdControl: '/var/lib/chutebox/networks/hostapd/wlan0' };
    expect(() => hostapdConfig(ap(), elsewhere, radio24)).toThrow(/reservation\.hostapdControl must be named after the interface \(vwlan5d1e\)/);
    expect(() => hostapdConfig(ap(), { ...reservation, hostapdControl: null }, radio24)).toThrow(/reservation\.hostapdControl is required/);
  });

  it('an access point on a radio without an SSID, and a mode that does not fit the channel', () => {
    expect(() => hostapdConfig({ type: 'wifi', intfName: 'wlan0' }, reservation, radio24)).toThrow(/^ssid is required/);
    expect(() => hostapdConfig(ap(), reservation, { kind: 'radio', hwmode: '11a', channel: 6 })).toThrow(/radio\.hwmode 11a is a 5 GHz mode/);
    expect(() => hostapdConfig(ap(), reservation, { kind: 'radio', hwmode: '11g', channel: 36 })).toThrow(/radio\.hwmode 11g is a 2.4 GHz mode/);
    expect(() => hostapdConfig(ap(), reservation, { kind: 'radio', channel: 200 })).toThrow(/radio\.channel 200/);
  });

  it('accounting settings without a server, and a server that is no IP address', () => {
    expect(() => hostapdConfig(ap({ options: { acct_secret: 's3cret' } }), reservation, radio24)).toThrow(/options\.acct_secret needs options\.acct_server/);
    expect(() => hostapdConfig(ap({ options: { acct_server: 'radius.example' } }), reservation, radio24)).toThrow(
      /options\.acct_server must be an IPv4 or IPv6 address/,
    );
  });
});

describe('dnsmasq arguments of a network with dhcp', () => {
  it('serve DHCP only on the host interface, from start for limit addresses, with the lease, router and DNS servers', () => {
    const entry = ap({ dhcp: { start: 10, limit: 20, lease: '2h' }, dns: ['8.8.8.8', '2001:4860:4860::8888', '1.1.1.1'] });
    expect(dnsmasqArgs(entry, reservation, { pidFile: '/run/chutebox/dnsmasq-vwlan5d1e.pid' })).toEqual([
      '--keep-in-foreground',
      '--conf-file=/dev/null',
      '--port=0',
      '--interface=vwlan5d1e',
      '--bind-interfaces',
      '--except-interface=lo',
      '--dhcp-range=10.128.0.10,10.128.0.29,255.255.255.0,7200s',
      '--dhcp-leasefile=/var/lib/chutebox/networks/dnsmasq/hello-wifi.leases',
      '--dhcp-option=option:router,10.128.0.1',
      '--dhcp-option=option:dns-server,8.8.8.8,1.1.1.1',
      '--dhcp-authoritative',
      '--pid-file=/run/chutebox/dnsmasq-vwlan5d1e.pid',
      '--log-facility=-',
    ]);
  });

  it('give .100 to .249 for 12 hours by default, advertise no DNS server and write no pid file', () => {
    const args = dnsmasqArgs(ap({ dhcp: {} }), reservation, {});
    expect(args).toContain('--dhcp-range=10.128.0.100,10.128.0.249,255.255.255.0,12h');
    expect(args.some((arg) => arg.includes('dns-server'))).toBe(false);
    expect(args).toContain('--pid-file');
  });

  it('take leasetime in seconds, and infinite', () => {
    expect(dnsmasqArgs(ap({ dhcp: { leasetime: 3600 } }), reservation, {})).toContain('--dhcp-range=10.128.0.100,10.128.0.249,255.255.255.0,3600s');
    expect(dnsmasqArgs(ap({ dhcp: { lease: 'infinite' } }), reservation, {})).toContain('--dhcp-range=10.128.0.100,10.128.0.249,255.255.255.0,infinite');
  });

  it('serve a VLAN network the same way', () => {
    const vlan: VlanEntry = { type: 'vlan', intfName: 'lan1', vlan_id: 20, dhcp: { start: 50, limit: 10 } };
    const args = dnsmasqArgs(vlan, { ...reservation, hostInterface: 'br-lan.20', hostapdControl: null, vlanId: 20 }, {});
    expect(args).toEqual(expect.arrayContaining(['--interface=br-lan.20', '--dhcp-range=10.128.0.50,10.128.0.59,255.255.255.0,12h']));
  });

  it('cut the default range to a small subnet, after the chute and before broadcast', () => {
    const small = { ...reservation, ipv4Network: '10.128.0.0/28' };
    expect(dnsmasqArgs(ap({ dhcp: {} }), small, {})).toContain('--dhcp-range=10.128.0.3,10.128.0.14,255.255.255.240,12h');
    expect(dnsmasqArgs(ap({ dhcp: { start: 5 } }), small, {})).toContain('--dhcp-range=10.128.0.5,10.128.0.14,255.255.255.240,12h');
  });

  it('refuse a start or limit given that does not fit the subnet', () => {
    const slash29 = { ...reservation, ipv4Network: '10.128.0.0/29' };
    expect(() => dnsmasqArgs(ap({ dhcp: { start: 100 } }), slash29, {})).toThrow(/^dhcp\.start 100 is outside .* 10\.128\.0\.0\/29 \(offsets 3 to 6/);
    expect(() => dnsmasqArgs(ap({ dhcp: { start: 2 } }), reservation, {})).toThrow(/^dhcp\.start 2/);
    expect(() => dnsmasqArgs(ap({ dhcp: { start: 3, limit: 5 } }), slash29, {})).toThrow(/^dhcp\.limit 5 runs past the subnet: from 10\.128\.0\.3, at most 4/);
    expect(() => dnsmasqArgs(ap({ dhcp: {} }), { ...reservation, ipv4Network: '10.128.0.0/30' }, {})).toThrow(/no address left/);
  });

  it('refuse a network without dhcp, a reservation without a lease file, and a dns entry that is no address', () => {
    expect(() => dnsmasqArgs(ap(), reservation, {})).toThrow(/^dhcp is required/);
    expect(() => dnsmasqArgs(ap({ dhcp: {} }), { ...reservation, leaseFile: null }, {})).toThrow(/reservation\.leaseFile is required/);
    expect(() => dnsmasqArgs(ap({ dhcp: {}, dns: ['8.8.8.8', 'dns.example'] }), reservation, {})).toThrow(/^dns\[1\]/);
    expect(() => dnsmasqArgs(ap({ dhcp: {} }), { ...reservation, hostInterface: 'a,b' }, {})).toThrow(/reservation\.hostInterface/);
  });
});

const dnsmasq = findOnPath('dnsmasq');
const hostapd = findOnPath('hostapd');
if (dnsmasq === null) console.log('chute-daemons: the dnsmasq --test check is skipped: dnsmasq is not on PATH (apt-get install -y dnsmasq-base)');
if (hostapd === null) console.log('chute-daemons: the hostapd configuration check is skipped: hostapd is not on PATH (apt-get install -y hostapd)');

describe('the real daemons', () => {
  const temp = useTempDir('chutebox-chute-daemons-');

  // hostapd has no syntax check: it is run on an interface that does not exist, so it reads the
  // whole configuration (and the EAP user file) and then fails to start, changing nothing.
  it.skipIf(hostapd === null)('hostapd reads every kind of generated configuration without a configuration error', async () => {
    const dir = await temp.folder('hostapd');
    const nowhere = { ...reservation, hostInterface: 'cbnone0', hostapdControl: path.join(dir, 'control', 'cbnone0') };
    const options = { hidden: true, isolate: true, maxassoc: 3, nasid: 'n1', acct_server: '127.0.0.1', acct_secret: 's', acct_interval: 60 };
    const entry = ap({ ssid: 'Café ☕', key: 'say "hi"!', options });
    const users = path.join(dir, 'users');
    await writeFile(users, eapUserFile(entry));
    const configs = [
      hostapdConfig(entry, nowhere, { kind: 'wired' }, users),
      hostapdConfig(entry, nowhere, { kind: 'radio', hwmode: '11ac', channel: 36, htmode: 'VHT80' }),
      hostapdConfig({ ...entry, ssid: ' lab ', key: 'ab'.repeat(32) }, nowhere, { kind: 'radio', hwmode: '11ax', channel: 'auto' }),
      hostapdConfig(ap(), nowhere, { kind: 'radio', hwmode: '11n', channel: 11, htmode: 'HT40-' }),
      hostapdConfig(ap(), nowhere, { kind: 'radio', hwmode: '11b', channel: 1 }),
    ];
    for (const [index, text] of configs.entries()) {
      const file = path.join(dir, `${index}.conf`);
      await writeFile(file, text);
      const result = await runTool({ name: 'hostapd', path: hostapd!, setting: 'PATH' }, [file], { timeoutMs: 10_000 });
      const output = result.stdout + result.stderr;
      expect(output, `${text}\n${output}`).not.toMatch(/errors? found in configuration file|^Line \d+:/m);
      expect(result.code, output).not.toBe(0);
    }
    await writeFile(path.join(dir, 'broken.conf'), `${configs[4]}hw_mode=q\n`);
    const broken = await runTool({ name: 'hostapd', path: hostapd!, setting: 'PATH' }, [path.join(dir, 'broken.conf')]);
    expect(broken.stdout + broken.stderr).toMatch(/1 errors found in configuration file/);
  });

  it.skipIf(dnsmasq === null)('accepts the arguments (dnsmasq --test)', async () => {
    const dir = await temp.folder('dnsmasq');
    const entry = ap({ dhcp: { start: 10, limit: 20, lease: 'infinite' }, dns: ['8.8.8.8', '1.1.1.1'] });
    const withFiles = { ...reservation, leaseFile: path.join(dir, 'leases') };
    for (const files of [{}, { pidFile: path.join(dir, 'dnsmasq.pid') }]) {
      const result = await runTool({ name: 'dnsmasq', path: dnsmasq!, setting: 'PATH' }, ['--test', ...dnsmasqArgs(entry, withFiles, files)]);
      expect(result, result.stderr).toMatchObject({ code: 0 });
      expect(result.stderr).toContain('syntax check OK');
    }
  });
});
