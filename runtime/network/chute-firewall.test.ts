import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { findOnPath } from '../../test/support/dockerd.ts';
import { run } from '../../test/support/netns.ts';
import { useTempDir } from '../../test/support/temp-dir.ts';
import { writeScript } from '../../test/support/tool-scripts.ts';
import { chuteFirewall, firewallBackend, type ChuteFirewall } from './chute-firewall.ts';

const temp = useTempDir('chutebox-chute-firewall-');

describe('firewallBackend: nftables, or iptables where nft is missing', () => {
  it('chooses nft when it is on PATH, iptables when only iptables is, and nft (to be named as missing) when neither is', async () => {
    const dir = await temp.folder('path');
    const both = path.join(dir, 'both');
    const onlyIptables = path.join(dir, 'only-iptables');
    const none = path.join(dir, 'none');
    for (const folder of [both, onlyIptables, none]) await mkdir(folder);
    await writeScript(both, 'nft', 'exit 0');
    await writeScript(both, 'iptables', 'exit 0');
    await writeScript(onlyIptables, 'iptables', 'exit 0');
    const programs = { nft: 'nft', iptables: 'iptables' };

    expect(await firewallBackend(programs, [none, both].join(path.delimiter))).toEqual({ kind: 'nft', path: 'nft' });
    expect(await firewallBackend(programs, [none, onlyIptables].join(path.delimiter))).toEqual({ kind: 'iptables', path: 'iptables' });
    expect(await firewallBackend(programs, none)).toEqual({ kind: 'nft', path: 'nft' });
    expect(await firewallBackend(programs, '')).toEqual({ kind: 'nft', path: 'nft' });
  });

  it('takes a path as it is, and passes over a file that is not executable and a folder of the same name', async () => {
    const dir = await temp.folder('paths');
    await writeFile(path.join(dir, 'nft'), '#!/bin/sh\n');
    await mkdir(path.join(dir, 'iptables'));
    const iptables = await writeScript(await temp.folder('paths-iptables'), 'iptables', 'exit 0');

    expect(await firewallBackend({ nft: 'nft', iptables: 'iptables' }, dir)).toEqual({ kind: 'nft', path: 'nft' });
    expect(await firewallBackend({ nft: path.join(dir, 'nft'), iptables }, dir)).toEqual({ kind: 'iptables', path: iptables });
    expect((await firewallBackend({ nft: path.join(dir, 'missing'), iptables: path.join(dir, 'iptables') }, dir)).kind).toBe('nft');
  });
});

/*
 * The real firewall, each backend in network namespaces of its own (`chutebox-fw-<random>-…`): the
 * module runs nft or iptables through a wrapper script (`ip netns exec <router> nft "$@"`) and turns
 * forwarding on in the router namespace, never in the machine's own. Needs root, ip and nft or
 * iptables; the traffic test needs busybox (ping) too. Without them the tests are skipped, unless
 * CHUTEBOX_REQUIRE_NETWORK is set (as in CI): then they fail.
 */
const hostForwarding = readFileSync('/proc/sys/net/ipv4/ip_forward', 'utf8');

function unavailableReason(programs: string[]): string | null {
  if (process.getuid?.() !== 0) return 'not root (network namespaces need root)';
  const missing = programs.filter((program) => findOnPath(program) === null);
  return missing.length > 0 ? `${missing.join(', ')} not on PATH (apt-get install -y --no-install-recommends iproute2 nftables iptables busybox-static)` : null;
}

/** Whether the tests needing `programs` are skipped (the reason printed), or fail because CHUTEBOX_REQUIRE_NETWORK is set. */
function skipWithout(programs: string[], what: string): { skipped: boolean; why: string } {
  const reason = unavailableReason(programs);
  const skipped = reason !== null && !process.env.CHUTEBOX_REQUIRE_NETWORK;
  if (skipped) console.warn(`runtime/network/chute-firewall.test.ts: ${what} skipped: ${reason}; set CHUTEBOX_REQUIRE_NETWORK=1 to make this a failure`);
  return { skipped, why: skipped ? ` (skipped: ${reason})` : '' };
}

/** Runs `program args` in namespace `ns` and answers its stdout (throws when it fails). */
const exec = (ns: string, program: string, args: string[]) => run('ip', ['netns', 'exec', ns, program, ...args]);

/** Whether one ping from namespace `ns` to `address` is answered. */
function pings(ns: string, address: string): boolean {
  return spawnSync('ip', ['netns', 'exec', ns, 'busybox', 'ping', '-c', '1', '-W', '1', address], { timeout: 10_000 }).status === 0;
}

/** The namespaces made by the tests, removed after each (with their interfaces and rules). */
const made: string[] = [];
afterEach(() => {
  for (const ns of made.splice(0).reverse()) spawnSync('ip', ['netns', 'del', ns]);
});

/** A fresh network namespace `chutebox-fw-<random>-<name>` with its loopback up. */
function namespace(name: string): string {
  const ns = `chutebox-fw-${randomBytes(4).toString('hex')}-${name}`;
  run('ip', ['netns', 'add', ns]);
  made.push(ns);
  run('ip', ['-n', ns, 'link', 'set', 'lo', 'up']);
  return ns;
}

/** Links the router namespace to `other` with a veth pair, `<router side>` up in the router with `gateway`, the other side with `address` routing by the gateway. */
function link(router: string, routerSide: string, other: string, gateway: string, address: string): void {
  run('ip', ['-n', router, 'link', 'add', routerSide, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', other]);
  run('ip', ['-n', router, 'address', 'add', `${gateway}/24`, 'dev', routerSide]);
  run('ip', ['-n', router, 'link', 'set', routerSide, 'up']);
  run('ip', ['-n', other, 'address', 'add', `${address}/24`, 'dev', 'eth0']);
  run('ip', ['-n', other, 'link', 'set', 'eth0', 'up']);
}

type Kind = 'nft' | 'iptables';

interface Router {
  ns: string;
  firewall: ChuteFirewall;
  /** How often the firewall turned forwarding on. */
  forwardingCalls(): number;
}

/** A router namespace and the firewall of `kind` working in it, through a wrapper script. */
async function router(kind: Kind): Promise<Router> {
  const ns = namespace('router');
  const dir = await temp.folder(ns);
  const wrapper = await writeScript(dir, kind, `exec ip netns exec ${ns} ${kind} "$@"`);
  let calls = 0;
  const forwarding = async () => {
    calls++;
    // tee in the router namespace: the machine's own ip_forward is never written.
    const result = spawnSync('ip', ['netns', 'exec', ns, 'tee', '/proc/sys/net/ipv4/ip_forward'], { input: '1\n', timeout: 10_000 });
    if (result.status !== 0) throw new Error(`turning forwarding on in ${ns} failed: ${result.stderr}`);
  };
  const firewall = chuteFirewall({ backend: { kind, path: wrapper }, runDir: path.join(dir, 'run'), timeoutMs: 10_000, forwarding });
  return { ns, firewall, forwardingCalls: () => calls };
}

/** How each backend lists what it made: the rules of an owner, the walled-off networks, and rules chutebox does not own. */
interface Listing {
  /** The rules carrying `owner`'s comment, as the tool lists them (without handles). */
  owned(ns: string, owner: string): string[];
  /** What `allow(owner, subnet, { isolateInterface })` makes, as the tool lists it. */
  expected(owner: string, subnet: string, isolate?: string): string[];
  /** The subnets no other chute network reaches. */
  walled(ns: string): string[];
  /** Everything of the namespace's firewall, as listed (with handles where there are). */
  everything(ns: string): string;
  /** Adds rules of someone else's in the namespace (one with an owner's comment), and answers how to list them. */
  foreign(ns: string): () => string;
  /** Whether anything of chutebox's was made. */
  anything(ns: string): boolean;
}

const LISTINGS: Record<Kind, Listing> = {
  nft: {
    owned: (ns, owner) =>
      exec(ns, 'nft', ['list', 'table', 'ip', 'chutebox'])
        .split('\n')
        .map((line) => line.trim())
        .filter((line) => line.endsWith(`comment "${owner}"`)),
    expected: (owner, subnet, isolate) => [
      ...(isolate === undefined ? [] : [`iifname "${isolate}" oifname "${isolate}" drop comment "${owner}"`]),
      `ip saddr ${subnet} ip daddr != ${subnet} masquerade comment "${owner}"`,
    ],
    walled: (ns) => {
      const elements = /elements = \{([^}]*)\}/.exec(exec(ns, 'nft', ['list', 'set', 'ip', 'chutebox', 'chute_nets']));
      return elements === null ? [] : elements[1]!.split(',').map((element) => element.trim());
    },
    everything: (ns) => exec(ns, 'nft', ['-a', 'list', 'ruleset']),
    foreign(ns) {
      exec(ns, 'nft', ['add', 'table', 'ip', 'foreign']);
      exec(ns, 'nft', ['add', 'chain', 'ip', 'foreign', 'forward', '{ type filter hook forward priority 0; policy accept; }']);
      exec(ns, 'nft', ['add', 'rule', 'ip', 'foreign', 'forward', 'ip', 'saddr', '192.0.2.0/24', 'accept', 'comment', '"lab/wifi"']);
      return () => exec(ns, 'nft', ['-a', 'list', 'table', 'ip', 'foreign']);
    },
    anything: (ns) => exec(ns, 'nft', ['list', 'tables']).includes('chutebox'),
  },
  iptables: {
    owned: (ns, owner) =>
      [...exec(ns, 'iptables', ['-S']).split('\n'), ...exec(ns, 'iptables', ['-t', 'nat', '-S']).split('\n')].filter(
        (line) => line.startsWith('-A CHUTEBOX-') && line.includes(`--comment "${owner}"`),
      ),
    expected: (owner, subnet, isolate) => [
      `-A CHUTEBOX-FORWARD -s ${subnet} -m comment --comment "${owner}" -j CHUTEBOX-CHUTES`,
      ...(isolate === undefined ? [] : [`-A CHUTEBOX-FORWARD -i ${isolate} -o ${isolate} -m comment --comment "${owner}" -j DROP`]),
      `-A CHUTEBOX-CHUTES -d ${subnet} -m comment --comment "${owner}" -j DROP`,
      `-A CHUTEBOX-POSTROUTING -s ${subnet} ! -d ${subnet} -m comment --comment "${owner}" -j MASQUERADE`,
    ],
    walled: (ns) =>
      exec(ns, 'iptables', ['-S', 'CHUTEBOX-CHUTES'])
        .split('\n')
        .flatMap((line) => /^-A CHUTEBOX-CHUTES -d (\S+) .*-j DROP$/.exec(line)?.[1] ?? []),
    everything: (ns) => exec(ns, 'iptables', ['-S']) + exec(ns, 'iptables', ['-t', 'nat', '-S']),
    foreign(ns) {
      exec(ns, 'iptables', ['-A', 'FORWARD', '-s', '192.0.2.0/24', '-j', 'ACCEPT']);
      exec(ns, 'iptables', ['-t', 'nat', '-A', 'POSTROUTING', '-s', '198.51.100.0/24', '-m', 'comment', '--comment', 'lab/wifi', '-j', 'MASQUERADE']);
      return () =>
        [
          ...exec(ns, 'iptables', ['-S', 'FORWARD'])
            .split('\n')
            .filter((line) => !line.includes('CHUTEBOX')),
          ...exec(ns, 'iptables', ['-t', 'nat', '-S', 'POSTROUTING'])
            .split('\n')
            .filter((line) => !line.includes('CHUTEBOX')),
        ].join('\n');
    },
    anything: (ns) => /CHUTEBOX/.test(exec(ns, 'iptables', ['-S']) + exec(ns, 'iptables', ['-t', 'nat', '-S'])),
  },
};

const WIFI = '10.201.1.0/24';
const LAN = '10.201.2.0/24';

for (const [kind, title] of [
  ['nft', 'nftables'],
  ['iptables', 'iptables (where nft is missing)'],
] as const) {
  const rules = skipWithout(['ip', kind], `the ${title} tests`);
  const traffic = skipWithout(['ip', kind, 'busybox'], `the ${title} traffic test`);
  const listing = LISTINGS[kind];

  describe.skipIf(rules.skipped)(`chute firewall on ${title}${rules.why}`, () => {
    afterAll(async () => {
      expect(await readFile('/proc/sys/net/ipv4/ip_forward', 'utf8'), "the machine's own ip_forward").toBe(hostForwarding);
    });

    it('lets each network out through NAT, walled off from the other chute networks, and adds nothing when asked again', async () => {
      const { ns, firewall, forwardingCalls } = await router(kind);
      expect(await firewall.allow('lab/wifi', WIFI)).toBe(true);
      expect(await firewall.allow('lab/lan', LAN, { isolateInterface: 'vlan20' })).toBe(true);
      expect(listing.owned(ns, 'lab/wifi').sort()).toEqual(listing.expected('lab/wifi', WIFI).sort());
      expect(listing.owned(ns, 'lab/lan').sort()).toEqual(listing.expected('lab/lan', LAN, 'vlan20').sort());
      expect(listing.walled(ns).sort()).toEqual([WIFI, LAN]);

      const before = listing.everything(ns);
      expect(await firewall.allow('lab/wifi', WIFI)).toBe(false);
      expect(await firewall.allow('lab/wifi', '10.201.1.7/24', { isolateInterface: null })).toBe(false);
      expect(await firewall.allow('lab/lan', LAN, { isolateInterface: 'vlan20' })).toBe(false);
      expect(listing.everything(ns)).toBe(before);

      expect(forwardingCalls()).toBe(1);
      expect(exec(ns, 'cat', ['/proc/sys/net/ipv4/ip_forward']).trim()).toBe('1');
    });

    it('refuses traffic in and out of the same interface only for a network that isolates, and replaces the rules when its subnet or isolation changes', async () => {
      const { ns, firewall } = await router(kind);
      await firewall.allow('lab/wifi', WIFI);
      expect(listing.owned(ns, 'lab/wifi').filter((line) => line.includes('vwlan5d1e'))).toEqual([]);

      expect(await firewall.allow('lab/wifi', WIFI, { isolateInterface: 'vwlan5d1e' })).toBe(true);
      expect(listing.owned(ns, 'lab/wifi').sort()).toEqual(listing.expected('lab/wifi', WIFI, 'vwlan5d1e').sort());

      expect(await firewall.allow('lab/wifi', '10.201.9.0/24', { isolateInterface: 'vwlan5d1e' })).toBe(true);
      expect(listing.owned(ns, 'lab/wifi').sort()).toEqual(listing.expected('lab/wifi', '10.201.9.0/24', 'vwlan5d1e').sort());
      expect(listing.walled(ns)).toEqual(['10.201.9.0/24']);

      expect(await firewall.allow('lab/wifi', '10.201.9.0/24')).toBe(true);
      expect(listing.owned(ns, 'lab/wifi').sort()).toEqual(listing.expected('lab/wifi', '10.201.9.0/24').sort());
    });

    it('removes exactly the rules of one network, leaving the other networks and rules chutebox does not own', async () => {
      const { ns, firewall } = await router(kind);
      const foreign = listing.foreign(ns);
      const foreignBefore = foreign();
      await firewall.allow('lab/wifi', WIFI, { isolateInterface: 'vwlan5d1e' });
      await firewall.allow('lab/lan', LAN);
      const lan = listing.owned(ns, 'lab/lan');

      expect(await firewall.remove('lab/wifi')).toBe(true);
      expect(listing.owned(ns, 'lab/wifi')).toEqual([]);
      expect(listing.owned(ns, 'lab/lan')).toEqual(lan);
      expect(listing.walled(ns)).toEqual([LAN]);
      expect(foreign()).toBe(foreignBefore);

      expect(await firewall.remove('lab/wifi')).toBe(false);
      expect(await firewall.remove('lab/lan')).toBe(true);
      expect(listing.walled(ns)).toEqual([]);
      expect(foreign()).toBe(foreignBefore);
    });

    it('sweeps away the rules of networks no chute owns any more, and only those', async () => {
      const { ns, firewall } = await router(kind);
      const foreign = listing.foreign(ns);
      const foreignBefore = foreign();
      await firewall.allow('gone/wifi', WIFI, { isolateInterface: 'vwlan5d1e' });
      await firewall.allow('kept/lan', LAN);
      const kept = listing.owned(ns, 'kept/lan');

      expect(await firewall.sweep(new Set(['kept/lan', 'never/made']))).toEqual(['gone/wifi']);
      expect(listing.owned(ns, 'gone/wifi')).toEqual([]);
      expect(listing.owned(ns, 'kept/lan')).toEqual(kept);
      expect(listing.walled(ns)).toEqual([LAN]);
      expect(foreign()).toBe(foreignBefore);
      expect(await firewall.sweep(new Set(['kept/lan']))).toEqual([]);
    });

    it('changes nothing on a remove or sweep before any network was allowed', async () => {
      const { ns, firewall, forwardingCalls } = await router(kind);
      expect(await firewall.remove('lab/wifi')).toBe(false);
      expect(await firewall.sweep(new Set())).toEqual([]);
      expect(listing.anything(ns)).toBe(false);
      expect(forwardingCalls()).toBe(0);
    });

    it('refuses an owner, a subnet or an interface that is not one, before running anything', async () => {
      const { ns, firewall } = await router(kind);
      await expect(firewall.allow('lab "wifi"', WIFI)).rejects.toThrow(/owner/);
      await expect(firewall.allow('lab/wifi', '10.201.1.0')).rejects.toThrow(/subnet/);
      await expect(firewall.allow('lab/wifi', WIFI, { isolateInterface: 'vwlan+' })).rejects.toThrow(/interface/);
      expect(listing.anything(ns)).toBe(false);
    });

    it.skipIf(traffic.skipped)(
      `refuses traffic between two chute networks and lets each out to the WAN through NAT, until a network is removed${traffic.why}`,
      async () => {
        const { ns, firewall } = await router(kind);
        const wifi = namespace('wifi');
        const lan = namespace('lan');
        const wan = namespace('wan');
        link(ns, 'rwifi', wifi, '10.201.1.1', '10.201.1.2');
        link(ns, 'rlan', lan, '10.201.2.1', '10.201.2.2');
        link(ns, 'rwan', wan, '10.201.3.1', '10.201.3.2');
        for (const station of [wifi, lan]) run('ip', ['-n', station, 'route', 'add', 'default', 'via', station === wifi ? '10.201.1.1' : '10.201.2.1']);
        // The WAN has no route back to the chute networks: only NAT lets an answer return.

        expect(pings(wifi, '10.201.3.2'), 'wifi to the WAN before the firewall (no forwarding, no NAT)').toBe(false);
        await firewall.allow('lab/wifi', WIFI, { isolateInterface: 'rwifi' });
        await firewall.allow('lab/lan', LAN);

        expect(pings(wifi, '10.201.3.2'), 'wifi to the WAN').toBe(true);
        expect(pings(lan, '10.201.3.2'), 'lan to the WAN').toBe(true);
        expect(pings(wifi, '10.201.2.2'), 'wifi to lan').toBe(false);
        expect(pings(lan, '10.201.1.2'), 'lan to wifi').toBe(false);
        expect(pings(wifi, '10.201.1.1'), 'wifi to its gateway (not forwarded)').toBe(true);

        await firewall.remove('lab/lan');
        expect(pings(wifi, '10.201.2.2'), 'wifi to lan, once lan is no chute network').toBe(true);
        expect(pings(lan, '10.201.3.2'), 'lan to the WAN without its NAT rule').toBe(false);
      },
    );
  });
}
