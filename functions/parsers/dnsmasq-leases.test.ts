import { describe, expect, it } from 'vitest';
import { rawFixture } from '../../test/support/info-devices.ts';
import { parseLeases } from './dnsmasq-leases.ts';

describe('dnsmasq lease file', () => {
  it('reads one lease per line, with expiry, MAC, address, hostname and client id', () => {
    const leases = parseLeases(rawFixture('dhcp_leases/openwrt_vm_router_four_leases.txt'));
    expect(leases).toHaveLength(4);
    expect(leases[0]).toEqual({
      expires: '1633703346',
      mac_addr: '00:1c:42:0f:b1:c7',
      ip_addr: '192.168.222.244',
      hostname: 'hostname1',
      client_id: '01:00:1c:42:0f:b1:c7',
    });
    expect(leases.map((l) => l.ip_addr)).toEqual(['192.168.222.244', '192.168.222.243', '192.168.123.148', '192.168.123.69']);
  });

  it('keeps a `*` hostname as dnsmasq wrote it', () => {
    const leases = parseLeases(rawFixture('dhcp_leases/libremesh975_star_hostnames.txt'));
    expect(leases.map((l) => l.hostname)).toEqual(['*', '*']);
    expect(leases[0]!.client_id).toBe('01:12:34:65:3d:ce:2b');
  });

  it('passes on the lease length a board without a clock writes instead of an epoch time', () => {
    const leases = parseLeases(rawFixture('dhcp_leases/openwrt12023_relative_expiry_no_rtc.txt'));
    expect(leases).toHaveLength(5);
    expect(leases.every((l) => l.expires === '43200')).toBe(true);
    expect(leases[3]).toMatchObject({ mac_addr: '00:e0:4c:68:00:7f', hostname: 'DESKTOP-9BQHAMK' });
  });

  it('leaves out a client id written as `*` and keeps expiry 0 (an infinite lease)', () => {
    expect(parseLeases('0 f0:de:f1:00:00:01 192.168.1.10 printer *\n')).toEqual([
      { expires: '0', mac_addr: 'f0:de:f1:00:00:01', ip_addr: '192.168.1.10', hostname: 'printer' },
    ]);
  });

  it('skips the duid line and reads the IPv6 leases after it with their address and no MAC', () => {
    const text = [
      '1700000000 f0:de:f1:00:00:01 192.168.1.10 laptop 01:f0:de:f1:00:00:01',
      'duid 00:01:00:01:2c:4a:5b:6c:f0:de:f1:aa:bb:cc',
      '1700003600 1234567 fd00::1:10 laptop 00:04:5a:1b:2c:3d:4e:5f:60:71:82:93:a4:b5:c6:d7:e8:f9',
      '1700003600 T7654321 fd00::1:99 * *',
      '',
    ].join('\n');
    expect(parseLeases(text)).toEqual([
      { expires: '1700000000', mac_addr: 'f0:de:f1:00:00:01', ip_addr: '192.168.1.10', hostname: 'laptop', client_id: '01:f0:de:f1:00:00:01' },
      { expires: '1700003600', ip_addr: 'fd00::1:10', hostname: 'laptop', client_id: '00:04:5a:1b:2c:3d:4e:5f:60:71:82:93:a4:b5:c6:d7:e8:f9' },
      { expires: '1700003600', ip_addr: 'fd00::1:99', hostname: '*' },
    ]);
  });

  it('keeps the hardware-type prefix dnsmasq writes for a client without an Ethernet address', () => {
    expect(parseLeases('1700000000 00- 10.0.0.5 * 01:02:03\n')[0]).toMatchObject({ mac_addr: '00-', ip_addr: '10.0.0.5' });
  });

  it('reads runs of blanks and Windows line ends, and skips lines that are not leases', () => {
    const text = '\r\n# not a lease\r\n1700000000  aa:bb:cc:dd:ee:ff\t10.0.0.7 phone *\r\nshort line\r\n';
    expect(parseLeases(text)).toEqual([{ expires: '1700000000', mac_addr: 'aa:bb:cc:dd:ee:ff', ip_addr: '10.0.0.7', hostname: 'phone' }]);
  });

  it('reads a line with a double space among lines written one space apart', () => {
    const text = '1700000000 aa:bb:cc:dd:ee:01 10.0.0.7 phone *\n1700000001  aa:bb:cc:dd:ee:02 10.0.0.8 tv 01:aa\n';
    expect(parseLeases(text).map((l) => [l.mac_addr, l.ip_addr, l.client_id])).toEqual([
      ['aa:bb:cc:dd:ee:01', '10.0.0.7', undefined],
      ['aa:bb:cc:dd:ee:02', '10.0.0.8', '01:aa'],
    ]);
  });

  it('reads a lease written without the client id field', () => {
    expect(parseLeases('1700000000 aa:bb:cc:dd:ee:ff 10.0.0.7 phone')).toEqual([
      { expires: '1700000000', mac_addr: 'aa:bb:cc:dd:ee:ff', ip_addr: '10.0.0.7', hostname: 'phone' },
    ]);
  });

  it('keeps a hostname or client id that only starts with `*`', () => {
    expect(parseLeases('1700000000 aa:bb:cc:dd:ee:ff 10.0.0.7 *phone **\n')).toEqual([
      { expires: '1700000000', mac_addr: 'aa:bb:cc:dd:ee:ff', ip_addr: '10.0.0.7', hostname: '*phone', client_id: '**' },
    ]);
  });

  it('ignores what follows the fifth field, and a space at the end of a line', () => {
    const text = '1700000000 aa:bb:cc:dd:ee:01 10.0.0.7 phone 01:aa  extra\n1700000001 aa:bb:cc:dd:ee:02 10.0.0.8 tv \n';
    expect(parseLeases(text)).toEqual([
      { expires: '1700000000', mac_addr: 'aa:bb:cc:dd:ee:01', ip_addr: '10.0.0.7', hostname: 'phone', client_id: '01:aa' },
      { expires: '1700000001', mac_addr: 'aa:bb:cc:dd:ee:02', ip_addr: '10.0.0.8', hostname: 'tv' },
    ]);
  });

  it('reads a lease with a double space between any two of its fields', () => {
    const fields = ['1700000000', 'aa:bb:cc:dd:ee:ff', '10.0.0.7', 'phone', '01:aa'];
    for (let at = 1; at < fields.length; at++) {
      const line = fields.map((field, i) => (i === at ? ` ${field}` : field)).join(' ');
      expect(parseLeases(`1700000009 aa:bb:cc:dd:ee:09 10.0.0.9 tv *\n${line}\n`)[1], line).toEqual({
        expires: '1700000000',
        mac_addr: 'aa:bb:cc:dd:ee:ff',
        ip_addr: '10.0.0.7',
        hostname: 'phone',
        client_id: '01:aa',
      });
    }
  });

  it('reads the leases around lines with fewer than four fields or an expiry that is not a number', () => {
    const text =
      '1700000000 aa:bb\n1700000001 aa:bb:cc:dd:ee:01 10.0.0.1 laptop *\n17000x0002 aa:bb:cc:dd:ee:02 10.0.0.2 tv *\n1700000003\n1700000004 aa:bb:cc:dd:ee:04 10.0.0.4 *\n';
    expect(parseLeases(text)).toEqual([
      { expires: '1700000001', mac_addr: 'aa:bb:cc:dd:ee:01', ip_addr: '10.0.0.1', hostname: 'laptop' },
      { expires: '1700000004', mac_addr: 'aa:bb:cc:dd:ee:04', ip_addr: '10.0.0.4', hostname: '*' },
    ]);
  });

  it('gives no MAC to a lease after a `duid` line, even one written without the server DUID', () => {
    // After the duid line, the second field is a client's IAID, whatever the address looks like.
    expect(parseLeases('duid\n1700000001 1234 10.0.0.2 laptop *\n')).toEqual([{ expires: '1700000001', ip_addr: '10.0.0.2', hostname: 'laptop' }]);
  });

  it('gives no lease for an empty file', () => {
    expect(parseLeases('')).toEqual([]);
  });
});
