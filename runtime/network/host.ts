import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { NetworkHost, NetworkTarget } from '../../functions/core/device/index.ts';
import { HttpProblem, isHttpProblem } from '../../functions/core/problem.ts';
import { runTool, type Tool, type ToolResult } from '../tools/run.ts';
import { sharedRuns, type SharedRuns } from '../tools/shared-run.ts';
import { connectProblem, DEFAULT_NETWORK_TOOLS, hostapdLate, iwProblem, type NetworkTools } from './tools.ts';

/** A station's MAC as the handlers pass it (validated and lower-cased by them; checked again here). */
const MAC = /^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/i;
/** What iw prints on stderr when the kernel knows no such station: `command failed: No such file or directory (-2)`. */
const NO_SUCH_STATION = /\(-2\)/;
/** The hostapd commands that only read, whose runs concurrent identical calls share. */
const READ_ONLY_HOSTAPD_COMMANDS = new Set(['STATUS', 'GET_CONFIG']);
/**
 * hostapd_cli when hostapd took longer than its own 10 s (it still exits 0): `'STATUS' command timed
 * out.`, alone or, for `all_sta`, after the stations it read before (`'STA-NEXT <mac>' …`).
 */
const HOSTAPD_TIMED_OUT = /^'.*' command timed out\.$/m;

/**
 * The host side of one chute network, on this machine: `iw dev <hostInterface> station …` for
 * stations, the dnsmasq lease file, and hostapd's control socket through `hostapd_cli` (see
 * docs/decisions/0006-hostapd-control-through-hostapd-cli.md): `hostapd_cli … raw <command>` per
 * command, and for events a `hostapd_cli … -a <echo>` that runs until stopped (see
 * `attachHostapdEvents` and docs/decisions/0013-hostapd-control-websocket.md). Tools run without a
 * shell, with an argument array and a timeout.
 *
 * The reads `station dump`, `station get <mac>` and hostapd's `STATUS` and `GET_CONFIG` share a run
 * in flight through `runs`, keyed by the executable and its whole argument list: concurrent identical
 * reads run the tool once, and a read that starts after that run ended runs it again. A Device makes
 * one `runs` and passes it to every `hostNetwork` it creates (one per request); without it, only the
 * calls of this one object share. Nothing that changes something (`station del`, `SET`, `RELOAD`, …)
 * is ever shared.
 *
 * @throws HttpProblem (from each method) 503 when the target has no such resource recorded, a tool
 *   is missing or the control socket is absent; 504 when a tool or hostapd does not answer in time;
 *   502 when a tool fails otherwise (its message in the detail).
 * @example
 * const host = hostNetwork({ chute: 'hello', network: 'wifi', hostInterface: 'vwlan0', hostapdControl: '/run/hostapd/vwlan0', leaseFile: '/var/lib/misc/dnsmasq.leases' }, DEFAULT_NETWORK_TOOLS);
 * await host.hostapd(['STATUS']); // 'state=ENABLED\n…'
 */
export function hostNetwork(target: NetworkTarget, tools: NetworkTools = DEFAULT_NETWORK_TOOLS, runs: SharedToolRuns = sharedRuns()): NetworkHost {
  const iw: Tool = { name: 'iw', path: tools.iw, setting: '--iw PATH or CHUTEBOX_IW' };
  const hostapdCliTool: Tool = { name: 'hostapd_cli', path: tools.hostapdCli, setting: '--hostapd-cli PATH or CHUTEBOX_HOSTAPD_CLI' };
  const limits = { timeoutMs: tools.timeoutMs };

  /** Runs a tool; a read shares the run in flight of the same executable with the same arguments. */
  function run(tool: Tool, args: string[], read: boolean): Promise<ToolResult> {
    if (!read) return runTool(tool, args, limits);
    return runs.run(JSON.stringify([tool.path, ...args]), () => runTool(tool, args, limits));
  }

  /** A resource the chute cache must record for this network; 503 naming it when it does not. */
  function recorded(key: 'hostInterface' | 'hostapdControl' | 'leaseFile'): string {
    const value = target[key];
    if (value === null || value === '') {
      throw new HttpProblem(503, `network ${target.network} of chute ${target.chute} has no ${key} recorded (chute cache networks.${target.network}.${key})`);
    }
    return value;
  }

  /**
   * Runs `iw dev <hostInterface> station <args>` (sharing a run in flight when `read`); answers its
   * result, or null when iw knows no such station.
   */
  async function station(args: string[], read: boolean): Promise<ToolResult | null> {
    const hostInterface = recorded('hostInterface');
    const command = ['dev', hostInterface, 'station', ...args];
    const result = await run(iw, command, read);
    if (result.code === 0) return result;
    const message = (result.stderr || result.stdout).trim() || `exit ${result.code ?? result.signal}`;
    if (NO_SUCH_STATION.test(message) && args.length > 1) return null;
    throw iwProblem(message, hostInterface, command);
  }

  /**
   * Runs `hostapd_cli -p <dir> -i <name> -- <args>` on the control socket (sharing a run in flight
   * when `read`) and answers what it printed. `--` ends hostapd_cli's options: a value such as `-v`
   * is sent to hostapd, not read as a flag.
   */
  async function hostapdCli(args: string[], read: boolean): Promise<string> {
    const socket = recorded('hostapdControl');
    let result: ToolResult;
    try {
      result = await run(hostapdCliTool, ['-p', path.dirname(socket), '-i', path.basename(socket), '--', ...args], read);
    } catch (error) {
      throw isHttpProblem(error) && error.status === 504 ? hostapdLate(socket, `within ${tools.timeoutMs / 1000} s`) : error;
    }
    const output = result.stdout + result.stderr;
    const cannotConnect = connectProblem(output, socket);
    if (cannotConnect) throw cannotConnect;
    if (HOSTAPD_TIMED_OUT.test(result.stdout)) throw hostapdLate(socket, 'in time');
    if (result.code !== 0) {
      // The command's name: `STATUS` of `raw STATUS`, or `all_sta`.
      throw new HttpProblem(
        502,
        `hostapd_cli ${args[args[0] === 'raw' ? 1 : 0]} on ${socket} failed: ${output.trim() || `exit ${result.code ?? result.signal}`}`,
      );
    }
    return result.stdout;
  }

  function checkMac(mac: string): string {
    if (!MAC.test(mac)) throw new HttpProblem(400, `not a MAC address: ${JSON.stringify(mac)}`);
    return mac;
  }

  const host: NetworkHost = {
    async stationDump() {
      return (await station(['dump'], true))!.stdout;
    },
    async stationGet(mac) {
      return (await station(['get', checkMac(mac)], true))?.stdout ?? null;
    },
    async stationDel(mac) {
      return (await station(['del', checkMac(mac)], false)) !== null;
    },
    async leases() {
      const file = recorded('leaseFile');
      try {
        return await readFile(file, 'utf8');
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT') return null;
        throw new HttpProblem(503, `the lease file ${file} cannot be read (${code ?? (error as Error).message})`);
      }
    },
    async hostapd(command) {
      if (command.length === 0) throw new HttpProblem(500, 'an empty hostapd command');
      if (command.some((word) => /[\r\n\0]/.test(word))) throw new HttpProblem(400, 'a hostapd command word must not hold a line break or NUL');
      return hostapdCli(['raw', ...command], READ_ONLY_HOSTAPD_COMMANDS.has(command.join(' ')));
    },
    hostapdStations: () => hostapdCli(['all_sta'], true),
    async hostapdEvents(onEvent, onEnd) {
      // A bundle of its own (dist/hostapd-events.mjs), loaded on the first ATTACH: only a client that attaches needs it.
      return (await import('./hostapd-events.entry.ts')).attachHostapdEvents(host, target, tools, onEvent, onEnd);
    },
  };
  return host;
}

/**
 * The tool runs in flight that concurrent identical reads share, keyed by executable and arguments:
 * one per Device, passed to each `hostNetwork` it creates.
 *
 * @example
 * const runs: SharedToolRuns = sharedRuns();
 * const network = (target: NetworkTarget) => hostNetwork(target, tools, runs);
 */
export type SharedToolRuns = SharedRuns<ToolResult>;
