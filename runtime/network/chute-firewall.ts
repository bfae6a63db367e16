import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { commandFailure } from '../config/command-exit.ts';
import { writeFileAtomic } from '../state/atomic-write.ts';
import { runTool, type Tool } from '../tools/run.ts';

/** chutebox's own nftables table: nothing else is ever flushed or changed. */
export const FIREWALL_TABLE = 'chutebox';

/**
 * The table, made once when it is missing: a set of the chute networks, a forward chain that refuses
 * traffic from one chute network to another, and a NAT chain for each network's masquerade rule.
 */
const TABLE = `table ip ${FIREWALL_TABLE} {
  set chute_nets { type ipv4_addr; flags interval; }
  chain forward { type filter hook forward priority filter; policy accept; ip saddr @chute_nets ip daddr @chute_nets drop; }
  chain postrouting { type nat hook postrouting priority srcnat; policy accept; }
}
`;

/** A masquerade rule of `nft -a list chain`: its comment (`<chute>/<network>`), its source network and its handle. */
const RULE = /ip saddr (\S+) .*comment "([^"]+)" # handle (\d+)/;

export interface ChuteFirewallOptions {
  /** The `nft` executable. */
  nft: string;
  /** Where the table's definition is written for `nft -f`. */
  runDir: string;
  timeoutMs: number;
}

/**
 * The firewall of the chute networks, in a table of chutebox's own (`ip chutebox`): each network's
 * subnet reaches beyond itself (the WAN) through NAT, and no chute network reaches another. A
 * network's rule carries `<chute>/<network>` as its comment and is added, found and removed by its
 * handle; nothing outside the table is touched. Forwarding is turned on when the table is made, as a
 * router has it.
 *
 * @example
 * const firewall = chuteFirewall({ nft: 'nft', runDir, timeoutMs: 5000 });
 * await firewall.allow('lab/wifi', '10.128.0.0/24');
 * await firewall.remove('lab/wifi');
 */
export function chuteFirewall(options: ChuteFirewallOptions) {
  const tool: Tool = { name: 'nft', path: options.nft, setting: 'nft on PATH' };
  let made: Promise<void> | undefined;

  async function nft(args: string[], check = true): Promise<{ ok: boolean; stdout: string }> {
    const result = await runTool(tool, args, { timeoutMs: options.timeoutMs });
    const failure = commandFailure(result);
    if (failure !== null && check) throw new Error(`nft ${args.join(' ')} ${failure}`);
    return { ok: failure === null, stdout: result.stdout };
  }

  /** The table, made when it is missing (once per run), and forwarding on. */
  function table(): Promise<void> {
    return (made ??= (async () => {
      if (!(await nft(['list', 'table', 'ip', FIREWALL_TABLE], false)).ok) {
        const file = path.join(options.runDir, 'firewall.nft');
        await mkdir(options.runDir, { recursive: true, mode: 0o700 });
        await writeFileAtomic(file, TABLE, 0o600);
        await nft(['-f', file]);
      }
      if ((await readFile('/proc/sys/net/ipv4/ip_forward', 'utf8')).trim() !== '1') await writeFile('/proc/sys/net/ipv4/ip_forward', '1\n');
    })().catch((error: unknown) => {
      made = undefined;
      throw error;
    }));
  }

  /** The masquerade rules of the table, by handle. */
  async function rules(): Promise<{ owner: string; subnet: string; handle: string }[]> {
    const { stdout } = await nft(['-a', 'list', 'chain', 'ip', FIREWALL_TABLE, 'postrouting']);
    return stdout.split('\n').flatMap((line) => {
      const match = RULE.exec(line);
      return match === null ? [] : [{ subnet: match[1]!, owner: match[2]!, handle: match[3]! }];
    });
  }

  async function drop(rule: { subnet: string; handle: string }): Promise<void> {
    await nft(['delete', 'rule', 'ip', FIREWALL_TABLE, 'postrouting', 'handle', rule.handle]);
    await nft(['delete', 'element', 'ip', FIREWALL_TABLE, 'chute_nets', `{ ${rule.subnet} }`], false);
  }

  return {
    /** Lets the network `owner` (`<chute>/<network>`) with `subnet` out through NAT, walled off from the other chute networks; kept when it is there. */
    async allow(owner: string, subnet: string): Promise<boolean> {
      await table();
      const existing = (await rules()).filter((rule) => rule.owner === owner);
      if (existing.some((rule) => rule.subnet === subnet)) return false;
      for (const rule of existing) await drop(rule);
      await nft(['add', 'element', 'ip', FIREWALL_TABLE, 'chute_nets', `{ ${subnet} }`]);
      await nft([
        'add',
        'rule',
        'ip',
        FIREWALL_TABLE,
        'postrouting',
        'ip',
        'saddr',
        subnet,
        'ip',
        'daddr',
        '!=',
        subnet,
        'masquerade',
        'comment',
        `"${owner}"`,
      ]);
      return true;
    },
    /** Removes the rule and set element of the network `owner`; answers whether there was one. */
    async remove(owner: string): Promise<boolean> {
      if (!(await nft(['list', 'table', 'ip', FIREWALL_TABLE], false)).ok) return false;
      const owned = (await rules()).filter((rule) => rule.owner === owner);
      for (const rule of owned) await drop(rule);
      return owned.length > 0;
    },
    /** Removes the rules of every network not in `owners` (a chute deleted while serve was down); answers their owners. */
    async sweep(owners: ReadonlySet<string>): Promise<string[]> {
      if (!(await nft(['list', 'table', 'ip', FIREWALL_TABLE], false)).ok) return [];
      const stale = (await rules()).filter((rule) => !owners.has(rule.owner));
      for (const rule of stale) await drop(rule);
      return stale.map((rule) => rule.owner);
    },
  };
}

export type ChuteFirewall = ReturnType<typeof chuteFirewall>;
