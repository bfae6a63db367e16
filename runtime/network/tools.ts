import { HttpProblem } from '../../functions/core/problem.ts';
import { DEFAULT_TIMEOUT_MS } from '../tools/run.ts';

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
