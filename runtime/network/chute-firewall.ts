import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { cidrText, parseCidr } from '../../functions/parsers/ipv4.ts';
import { commandFailure } from '../device-config/command-exit.ts';
import { writeFileAtomic } from '../state/atomic-write.ts';
import { findProgram } from '../tools/programs.ts';
import { runTool, type Tool } from '../tools/run.ts';

/** chutebox's own nftables table: nothing else is ever flushed or changed. */
export const FIREWALL_TABLE = 'chutebox';

/** chutebox's own iptables chains (iptables where nft is missing): nothing else is ever flushed or changed. */
export const IPTABLES_CHAINS = {
  /** In `filter`, jumped to from FORWARD: per network a jump of its subnet to `chutes`, and its isolation rule. */
  forward: 'CHUTEBOX-FORWARD',
  /** In `filter`: per network a drop of traffic to its subnet (reached only from a chute network). */
  chutes: 'CHUTEBOX-CHUTES',
  /** In `nat`, jumped to from POSTROUTING: per network its masquerade rule. */
  postrouting: 'CHUTEBOX-POSTROUTING',
} as const;

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

/** A rule of `nft -a list table` that carries a comment: the rule, its comment and its handle. */
const NFT_OWNED = /^\s*(.*?)\s*comment "([^"]*)" # handle (\d+)$/;
const NFT_MASQUERADE = /^ip saddr (\S+) ip daddr != \S+ masquerade$/;
const NFT_ISOLATE = /^iifname "([^"]+)" oifname "([^"]+)" drop$/;

/** A host interface name chutebox makes (no wildcard `+`, nothing a rule would read otherwise). */
const INTERFACE = /^[A-Za-z0-9_.-]{1,15}$/;
/** An owner, `<chute>/<network>`: it is a rule's comment, so no quote, backslash or white space. */
const OWNER = /^[^\s"'\\]{1,128}$/;

/** Which program keeps the chute networks' rules, and its executable (a name on PATH or a path). */
export type FirewallBackend = { kind: 'nft'; path: string } | { kind: 'iptables'; path: string };

/**
 * The backend for this host: nft when `programs.nft` is an executable file (a path, or a name found
 * on `searchPath`), otherwise iptables when `programs.iptables` is one, otherwise nft again, so that
 * the first change that needs the firewall fails naming nft.
 *
 * @example
 * await firewallBackend({ nft: 'nft', iptables: 'iptables' }) // { kind: 'iptables', path: 'iptables' } on a host without nft
 */
export async function firewallBackend(programs: { nft: string; iptables: string }, searchPath = process.env.PATH ?? ''): Promise<FirewallBackend> {
  if ((await findProgram(programs.nft, searchPath)) === null && (await findProgram(programs.iptables, searchPath)) !== null) {
    return { kind: 'iptables', path: programs.iptables };
  }
  return { kind: 'nft', path: programs.nft };
}

export interface ChuteFirewallOptions {
  /** nftables, or iptables where nft is missing (`firewallBackend`, looked up when the firewall is first needed). */
  backend: FirewallBackend | Promise<FirewallBackend>;
  /** Where the nft table's definition is written for `nft -f`. */
  runDir: string;
  timeoutMs: number;
  /**
   * Turns IPv4 forwarding on, once, when the rules are first made; by default writes 1 to
   * /proc/sys/net/ipv4/ip_forward when it is not 1 already. Tests run it in their own namespace.
   */
  forwarding?: () => Promise<void>;
}

/** How a network is let out: its subnet and, with `isolate`, the host interface it is isolated on. */
export interface AllowOptions {
  /**
   * The network's host interface when the network has `options.isolate`: traffic that enters and
   * leaves by it (stations of one access point reaching each other through the router) is refused.
   */
  isolateInterface?: string | null;
}

/** A rule of a network, as listed: its owner, what it does (`masquerade 10.128.0.0/24`) and how to remove it. */
interface OwnedRule {
  owner: string;
  key: string;
  remove(): Promise<void>;
}

/** What each backend does; the rules of an owner are compared by their keys. */
interface Backend {
  /** Makes the table or chains when they are missing. */
  make(): Promise<void>;
  /** The rules that carry an owner's comment; none when nothing was made yet. */
  rules(): Promise<OwnedRule[]>;
  /** The keys of the rules `add` makes. */
  expected(subnet: string, isolate: string | null): string[];
  add(owner: string, subnet: string, isolate: string | null): Promise<void>;
}

/**
 * The firewall of the chute networks: each network's subnet reaches beyond itself (the WAN) through
 * NAT, no chute network reaches another, and a network with `options.isolate` does not reach itself
 * through the router either. Each rule carries its network's `<chute>/<network>` as its comment;
 * nothing outside chutebox's own rules is touched or flushed. Forwarding is turned on when the rules
 * are first made, as a router has it.
 *
 * - **nftables**: a table of its own, `ip chutebox` (a set of the chute networks, one drop rule
 *   between them, per network a masquerade rule and the isolation rule), rules added and removed by
 *   their handle, found again by their comment, also after a restart.
 * - **iptables** (where nft is missing): chains of its own, `CHUTEBOX-FORWARD` and `CHUTEBOX-CHUTES`
 *   in `filter` and `CHUTEBOX-POSTROUTING` in `nat` (`IPTABLES_CHAINS`), each jumped to once from
 *   FORWARD or POSTROUTING (inserted first when `-C` finds no jump). iptables has neither handles
 *   nor sets: a rule is found by listing its chain (`-S`) and removed by `-D` with the exact spec
 *   listed; per network, `CHUTEBOX-FORWARD` sends its subnet to `CHUTEBOX-CHUTES`, which drops what
 *   goes to any chute network's subnet.
 *
 * Once the last network is removed, the empty table (or the empty chains and their jumps) stay, to
 * be used again; they match nothing.
 *
 * @example
 * const firewall = chuteFirewall({ backend: firewallBackend({ nft: 'nft', iptables: 'iptables' }), runDir, timeoutMs: 5000 });
 * await firewall.allow('lab/wifi', '10.128.0.0/24', { isolateInterface: 'vwlan5d1e' });
 * await firewall.remove('lab/wifi');
 */
export function chuteFirewall(options: ChuteFirewallOptions) {
  let chosen: Promise<Backend> | undefined;
  const backendOf = () =>
    (chosen ??= Promise.resolve(options.backend).then((backend) =>
      backend.kind === 'nft' ? nftBackend(backend.path, options) : iptablesBackend(backend.path, options),
    ));
  const forwarding = options.forwarding ?? turnOnForwarding;
  let made: Promise<void> | undefined;

  /** The rules' table or chains, made when they are missing (once per run), and forwarding on. */
  function ready(): Promise<void> {
    return (made ??= (async () => {
      await (await backendOf()).make();
      await forwarding();
    })().catch((error: unknown) => {
      made = undefined;
      throw error;
    }));
  }

  return {
    /**
     * Lets the network `owner` (`<chute>/<network>`) with `subnet` out through NAT, walled off from
     * the other chute networks and, with `isolateInterface`, from itself through that interface.
     * Answers false when exactly these rules are there already; other rules of the owner (another
     * subnet, another isolation) are replaced.
     */
    async allow(owner: string, subnet: string, allowOptions: AllowOptions = {}): Promise<boolean> {
      if (!OWNER.test(owner)) throw new Error(`firewall owner ${JSON.stringify(owner)} is no <chute>/<network>`);
      const network = parseCidr(subnet);
      if (network === undefined) throw new Error(`firewall subnet ${JSON.stringify(subnet)} is no IPv4 network`);
      const isolate = allowOptions.isolateInterface ?? null;
      if (isolate !== null && !INTERFACE.test(isolate)) throw new Error(`firewall interface ${JSON.stringify(isolate)} is no interface name`);
      const canonical = cidrText(network);
      await ready();
      const backend = await backendOf();
      const existing = (await backend.rules()).filter((rule) => rule.owner === owner);
      if (sameKeys(existing, backend.expected(canonical, isolate))) return false;
      for (const rule of existing) await rule.remove();
      await backend.add(owner, canonical, isolate);
      return true;
    },
    /** Removes the rules of the network `owner`; answers whether there were any. */
    async remove(owner: string): Promise<boolean> {
      const owned = (await (await backendOf()).rules()).filter((rule) => rule.owner === owner);
      for (const rule of owned) await rule.remove();
      return owned.length > 0;
    },
    /** Removes the rules of every network not in `owners` (a chute deleted while serve was down); answers their owners. */
    async sweep(owners: ReadonlySet<string>): Promise<string[]> {
      const stale = (await (await backendOf()).rules()).filter((rule) => !owners.has(rule.owner));
      for (const rule of stale) await rule.remove();
      return [...new Set(stale.map((rule) => rule.owner))];
    },
  };
}

export type ChuteFirewall = ReturnType<typeof chuteFirewall>;

async function turnOnForwarding(): Promise<void> {
  if ((await readFile('/proc/sys/net/ipv4/ip_forward', 'utf8')).trim() !== '1') await writeFile('/proc/sys/net/ipv4/ip_forward', '1\n');
}

function sameKeys(rules: readonly OwnedRule[], keys: readonly string[]): boolean {
  const have = rules.map((rule) => rule.key).sort();
  const want = [...keys].sort();
  return have.length === want.length && have.every((key, index) => key === want[index]);
}

/** A subnet as listed (nft prints a /32 as a bare address), in slash notation. */
function listedSubnet(text: string): string {
  const network = parseCidr(text.includes('/') ? text : `${text}/32`);
  return network === undefined ? text : cidrText(network);
}

/** Runs the tool; throws naming the command when it fails and `check` is set. */
function runner(tool: Tool, timeoutMs: number) {
  return async (args: string[], check = true): Promise<{ ok: boolean; stdout: string; stderr: string; failure: string | null }> => {
    const result = await runTool(tool, args, { timeoutMs });
    const failure = commandFailure(result);
    if (failure !== null && check) throw new Error(`${tool.name} ${args.join(' ')} ${failure}`);
    return { ok: failure === null, stdout: result.stdout, stderr: result.stderr, failure };
  };
}

function nftBackend(program: string, options: ChuteFirewallOptions): Backend {
  const nft = runner({ name: 'nft', path: program, setting: 'nft (or iptables) on PATH' }, options.timeoutMs);
  const table = ['ip', FIREWALL_TABLE];

  function rule(chain: string, handle: string, owner: string, key: string, after?: () => Promise<void>): OwnedRule {
    return {
      owner,
      key,
      async remove() {
        await nft(['delete', 'rule', ...table, chain, 'handle', handle]);
        await after?.();
      },
    };
  }

  return {
    async make() {
      if ((await nft(['list', 'table', ...table], false)).ok) return;
      const file = path.join(options.runDir, 'firewall.nft');
      await mkdir(options.runDir, { recursive: true, mode: 0o700 });
      await writeFileAtomic(file, TABLE, 0o600);
      await nft(['-f', file]);
    },
    async rules() {
      const listed = await nft(['-a', 'list', 'table', ...table], false);
      // The table is made by the first allow: before it, there is nothing of ours.
      if (!listed.ok && /No such file or directory/.test(listed.stderr)) return [];
      if (!listed.ok) throw new Error(`nft -a list table ${table.join(' ')} ${listed.failure}`);
      let chain = '';
      return listed.stdout.split('\n').flatMap((line): OwnedRule[] => {
        const opened = /^\s*chain (\S+) \{/.exec(line);
        if (opened !== null) chain = opened[1]!;
        const owned = NFT_OWNED.exec(line);
        if (owned === null || chain === '') return [];
        const [, body, owner, handle] = owned as unknown as [string, string, string, string];
        const masquerade = chain === 'postrouting' ? NFT_MASQUERADE.exec(body) : null;
        if (masquerade !== null) {
          const subnet = listedSubnet(masquerade[1]!);
          // The set element goes with the masquerade rule; it may be gone already.
          return [
            rule(chain, handle, owner, `masquerade ${subnet}`, () => nft(['delete', 'element', ...table, 'chute_nets', `{ ${subnet} }`], false).then(() => {})),
          ];
        }
        const isolate = chain === 'forward' ? NFT_ISOLATE.exec(body) : null;
        if (isolate !== null && isolate[1] === isolate[2]) return [rule(chain, handle, owner, `isolate ${isolate[1]}`)];
        return [rule(chain, handle, owner, `${chain}: ${body}`)];
      });
    },
    expected(subnet, isolate) {
      return [`masquerade ${subnet}`, ...(isolate === null ? [] : [`isolate ${isolate}`])];
    },
    async add(owner, subnet, isolate) {
      const comment = ['comment', `"${owner}"`];
      await nft(['add', 'element', ...table, 'chute_nets', `{ ${subnet} }`]);
      await nft(['add', 'rule', ...table, 'postrouting', 'ip', 'saddr', subnet, 'ip', 'daddr', '!=', subnet, 'masquerade', ...comment]);
      if (isolate !== null) await nft(['add', 'rule', ...table, 'forward', 'iifname', `"${isolate}"`, 'oifname', `"${isolate}"`, 'drop', ...comment]);
    },
  };
}

/** The words of a line of `iptables -S`, with its quoting (`"lab/wifi"`, `\"`) undone. */
function iptablesWords(line: string): string[] {
  const words: string[] = [];
  let at = 0;
  while (at < line.length) {
    if (line[at] === ' ') {
      at++;
      continue;
    }
    let word = '';
    if (line[at] === '"') {
      at++;
      while (at < line.length && line[at] !== '"') {
        if (line[at] === '\\' && at + 1 < line.length) at++;
        word += line[at++];
      }
      at++;
    } else {
      while (at < line.length && line[at] !== ' ') word += line[at++];
    }
    words.push(word);
  }
  return words;
}

/** The word after `flag` in a rule's words (`-s`, `--comment`), or null. */
function after(words: readonly string[], flag: string): string | null {
  const index = words.indexOf(flag);
  return index < 0 || index + 1 >= words.length ? null : words[index + 1]!;
}

function iptablesBackend(program: string, options: ChuteFirewallOptions): Backend {
  const iptables = runner({ name: 'iptables', path: program, setting: 'iptables on PATH' }, options.timeoutMs);
  const { forward, chutes, postrouting } = IPTABLES_CHAINS;
  /** Each own chain with its table and the built-in chain that jumps to it (none for `chutes`). */
  const chains = [
    { table: 'filter', chain: chutes, from: null },
    { table: 'filter', chain: forward, from: 'FORWARD' },
    { table: 'nat', chain: postrouting, from: 'POSTROUTING' },
  ] as const;

  const comment = (owner: string) => ['-m', 'comment', '--comment', owner];

  /** What a listed rule of an own chain does, as a key. */
  function keyOf(chain: string, words: readonly string[]): string {
    const target = after(words, '-j');
    const source = after(words, '-s');
    const destination = after(words, '-d');
    const input = after(words, '-i');
    if (chain === postrouting && target === 'MASQUERADE' && source !== null) return `masquerade ${listedSubnet(source)}`;
    if (chain === forward && target === chutes && source !== null) return `from ${listedSubnet(source)}`;
    if (chain === forward && target === 'DROP' && input !== null && input === after(words, '-o')) return `isolate ${input}`;
    if (chain === chutes && target === 'DROP' && destination !== null) return `to ${listedSubnet(destination)}`;
    return `${chain}: ${words.join(' ')}`;
  }

  return {
    async make() {
      for (const { table, chain, from } of chains) {
        const listed = (await iptables(['-w', '-t', table, '-S'])).stdout.split('\n');
        if (!listed.includes(`-N ${chain}`)) await iptables(['-w', '-t', table, '-N', chain]);
        if (from !== null && !(await iptables(['-w', '-t', table, '-C', from, '-j', chain], false)).ok) {
          await iptables(['-w', '-t', table, '-I', from, '1', '-j', chain]);
        }
      }
    },
    async rules() {
      const rules: OwnedRule[] = [];
      for (const table of ['filter', 'nat']) {
        const listed = (await iptables(['-w', '-t', table, '-S'])).stdout.split('\n');
        for (const line of listed) {
          const words = iptablesWords(line);
          const chain = words[1];
          if (words[0] !== '-A' || !chains.some((own) => own.table === table && own.chain === chain)) continue;
          const owner = after(words, '--comment');
          if (owner === null) continue;
          const spec = words.slice(2);
          rules.push({ owner, key: keyOf(chain!, spec), remove: () => iptables(['-w', '-t', table, '-D', chain!, ...spec]).then(() => {}) });
        }
      }
      return rules;
    },
    expected(subnet, isolate) {
      return [`to ${subnet}`, `from ${subnet}`, `masquerade ${subnet}`, ...(isolate === null ? [] : [`isolate ${isolate}`])];
    },
    async add(owner, subnet, isolate) {
      await iptables(['-w', '-t', 'filter', '-A', chutes, '-d', subnet, ...comment(owner), '-j', 'DROP']);
      await iptables(['-w', '-t', 'filter', '-A', forward, '-s', subnet, ...comment(owner), '-j', chutes]);
      if (isolate !== null) await iptables(['-w', '-t', 'filter', '-A', forward, '-i', isolate, '-o', isolate, ...comment(owner), '-j', 'DROP']);
      await iptables(['-w', '-t', 'nat', '-A', postrouting, '-s', subnet, '!', '-d', subnet, ...comment(owner), '-j', 'MASQUERADE']);
    },
  };
}
