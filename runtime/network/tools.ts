import { HttpProblem } from '../../functions/core/problem.ts';
import { DEFAULT_TIMEOUT_MS } from '../tools/limits.ts';

/** Where the runtime finds the network tools, and how long each may take. */
export interface NetworkTools {
  /** The `iw` executable (a name on PATH or a path). */
  iw: string;
  /** The `hostapd_cli` executable (a name on PATH or a path). */
  hostapdCli: string;
  /** Milliseconds a tool may run before it is stopped (a 504). */
  timeoutMs: number;
  /**
   * The program `hostapd_cli -a` runs for each of hostapd's events, which must print its arguments
   * on one line as echo does (`/bin/echo`, busybox's on OpenWrt).
   */
  eventProgram: string;
}

export const DEFAULT_NETWORK_TOOLS: NetworkTools = { iw: 'iw', hostapdCli: 'hostapd_cli', eventProgram: '/bin/echo', timeoutMs: DEFAULT_TIMEOUT_MS };

/** `command failed: No such device (-19)`: the host interface is gone, or is no Wi-Fi interface (a lab link). */
const NO_SUCH_DEVICE = /\(-19\)/;

/**
 * The problem of an iw command that failed (`iw dev <if> station …`, exit not 0), from what iw
 * printed: 503 when the host interface does not exist or the machine has no nl80211 (iw cannot
 * answer, hostapd may), else 502 naming the command. What the runtime answers and the emulator's
 * missing radio alike.
 *
 * @example
 * iwProblem('command failed: No such device (-19)', 'vwlan0', ['dev', 'vwlan0', 'station', 'dump'])
 * // HttpProblem 503 'host interface vwlan0 does not exist (iw: command failed: No such device (-19))'
 */
export function iwProblem(message: string, hostInterface: string, command: readonly string[]): HttpProblem {
  if (NO_SUCH_DEVICE.test(message)) return new HttpProblem(503, `host interface ${hostInterface} does not exist (iw: ${message})`);
  if (/nl80211 not found/.test(message)) return new HttpProblem(503, `this machine has no WiFi stack (iw: ${message})`);
  return new HttpProblem(502, `iw ${command.join(' ')} failed: ${message}`);
}

/**
 * The 504 of hostapd not answering on its control socket `within` a time (`within 5 s`, or `in time`
 * when hostapd_cli gave up by itself).
 */
export function hostapdLate(socket: string, within: string): HttpProblem {
  return new HttpProblem(504, `hostapd did not answer on its control socket ${socket} ${within}`);
}

/** The 504 of a `hostapd_cli -a` that did not attach to hostapd's events within `timeoutMs`. */
export function hostapdAttachLate(socket: string, timeoutMs: number): HttpProblem {
  return new HttpProblem(504, `hostapd_cli did not attach to hostapd's control socket ${socket} within ${timeoutMs / 1000} s`);
}

/** hostapd_cli when it cannot open the control socket: `Failed to connect to hostapd - wpa_ctrl_open: <reason>`. */
const CANNOT_CONNECT = /Failed to connect to hostapd - wpa_ctrl_open: (.*)/;

/**
 * The 503 of hostapd_cli's output when it could not open the control socket, or null: for a command
 * (`hostNetwork`) and for the events (`attachHostapdEvents`) alike.
 *
 * @example
 * connectProblem('Failed to connect to hostapd - wpa_ctrl_open: No such file or directory', '/run/hostapd/vwlan0')
 * // HttpProblem 503 'hostapd control socket /run/hostapd/vwlan0 does not exist (is hostapd running for this network?)'
 */
export function connectProblem(output: string, socket: string): HttpProblem | null {
  const cannotConnect = CANNOT_CONNECT.exec(output);
  if (cannotConnect === null) return null;
  const reason = cannotConnect[1]!.trim();
  const why = /No such file or directory/.test(reason)
    ? 'does not exist (is hostapd running for this network?)'
    : /Connection refused/.test(reason)
      ? 'does not answer: no hostapd is listening on it'
      : `cannot be opened: ${reason}`;
  return new HttpProblem(503, `hostapd control socket ${socket} ${why}`);
}
