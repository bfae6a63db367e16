import { describe, expect, it } from 'vitest';
import { parseNetDev, sumCounters } from './netdev.ts';

const NET_DEV = `Inter-|   Receive                                                |  Transmit
 face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed
    lo:   22670     209    0    0    0     0          0         0    22670     209    0    0    0     0       0          0
  eth0:12345678901 9876543    3    7    0     0          0      1200 987654321  654321    1    2    0     0       0          0
phy0-ap0: 3000000   20000    0    0    0     0          0         0 60000000   45000    0   11    0     0       0          0
`;

describe('/proc/net/dev', () => {
  const interfaces = parseNetDev(NET_DEV);

  it('skips the two header lines and reads one entry per interface', () => {
    expect(interfaces.map((i) => i.name)).toEqual(['lo', 'eth0', 'phy0-ap0']);
  });

  it('reads an interface whose numbers touch the colon', () => {
    expect(interfaces[1]).toEqual({
      name: 'eth0',
      bytes_recv: 12345678901,
      packets_recv: 9876543,
      errin: 3,
      dropin: 7,
      bytes_sent: 987654321,
      packets_sent: 654321,
      errout: 1,
      dropout: 2,
    });
  });

  it('sums the counters over every interface, loopback too', () => {
    expect(sumCounters(interfaces)).toEqual({
      bytes_sent: 22670 + 987654321 + 60000000,
      bytes_recv: 22670 + 12345678901 + 3000000,
      packets_sent: 209 + 654321 + 45000,
      packets_recv: 209 + 9876543 + 20000,
      errin: 3,
      errout: 1,
      dropin: 7,
      dropout: 13,
    });
  });

  it('skips lines with too few numbers', () => {
    expect(parseNetDev('  eth0: 1 2 3\n')).toEqual([]);
  });
});
