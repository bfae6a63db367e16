import { describe, expect, it } from 'vitest';
import { cidrText, ipv4Number, ipv4Subnet, ipv4Text, netmaskPrefix, overlaps, parseCidr } from './ipv4.ts';

describe('IPv4 helpers', () => {
  it('reads dotted quads strictly and netmasks only when contiguous', () => {
    expect(ipv4Number('192.168.1.1')).toBe(3232235777);
    expect(ipv4Text(3232235777)).toBe('192.168.1.1');
    for (const bad of ['192.168.1', '192.168.1.256', '192.168.01.1', '1.2.3.4.5', '', 'a.b.c.d']) expect(ipv4Number(bad), bad).toBeUndefined();
    expect(netmaskPrefix('255.255.255.0')).toBe(24);
    expect(netmaskPrefix('0.0.0.0')).toBe(0);
    expect(netmaskPrefix('255.255.255.255')).toBe(32);
    expect(netmaskPrefix('255.0.255.0')).toBeUndefined();
    expect(ipv4Subnet('10.1.2.3', '255.255.0.0')).toEqual({ network: ipv4Number('10.1.0.0'), broadcast: ipv4Number('10.1.255.255'), prefix: 16 });
  });

  it('reads networks in slash notation, dropping host bits, and tells when two overlap', () => {
    expect(parseCidr('10.128.0.0/9')).toEqual({ network: ipv4Number('10.128.0.0'), broadcast: ipv4Number('10.255.255.255'), prefix: 9 });
    expect(cidrText(parseCidr('10.0.0.5/24')!)).toBe('10.0.0.0/24');
    for (const bad of ['10.0.0.0', '10.0.0.0/33', '10.0.0.0/024', '10.0.0/8', '10.0.0.0/8/8', '']) expect(parseCidr(bad), bad).toBeUndefined();
    expect(overlaps(parseCidr('10.0.0.0/8')!, parseCidr('10.128.3.0/24')!)).toBe(true);
    expect(overlaps(parseCidr('192.168.1.0/24')!, parseCidr('192.168.2.0/24')!)).toBe(false);
    expect(overlaps(parseCidr('192.168.1.0/24')!, parseCidr('192.168.1.255/32')!)).toBe(true);
  });
});
