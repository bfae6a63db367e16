import type { Device, DeviceSources, HostapdEvents, NetworkHost, NetworkTarget } from '../../functions/core/device/index.ts';
import type { HttpProblem } from '../../functions/core/problem.ts';
import { connectProblem, hostapdAttachLate, hostapdLate, iwProblem } from '../../runtime/network/tools.ts';
import { toolTimedOut } from '../../runtime/tools/limits.ts';
import type { DeviceFault } from './device-fault.ts';
import { radioOfNetwork } from './radios.ts';

/** What iw prints for an interface whose radio has gone. */
const IW_NO_SUCH_DEVICE = 'command failed: No such device (-19)';
/** What hostapd_cli prints when hostapd was killed: its control socket is left, and nobody listens on it. */
const HOSTAPD_KILLED = 'Failed to connect to hostapd - wpa_ctrl_open: Connection refused';
/** What hostapd_cli prints when hostapd has exited and removed its socket, as it does when its radio goes. */
const HOSTAPD_GONE = 'Failed to connect to hostapd - wpa_ctrl_open: No such file or directory';

/** How iw answers for a network under the active faults: as usual, hanging, without the radio, or with no access point (no stations). */
type IwState = 'hangs' | 'gone' | 'no-ap' | null;
/** How hostapd's control socket answers: as usual, through a hanging hostapd_cli, killed, or gone with its radio. */
type HostapdState = 'hangs' | 'killed' | 'gone' | null;

/**
 * The Device's `network` under the device faults that hit chute networks, each call answering what
 * serve answers in the same real situation (docs/decisions/0052-device-faults-as-serve-answers-them.md),
 * in serve's own words (runtime/network/tools.ts, runtime/tools/limits.ts):
 * - `iw-hang`, `hostapd-cli-hang`: the call waits `timeoutMs` (serve's `--tool-timeout`), then is a 504;
 * - `radio-gone` (the networks on that radio): iw fails with `No such device (-19)` (a 503 naming the
 *   host interface) and hostapd's control socket does not exist (a 503), as hostapd exits with its radio;
 * - `hostapd-down` (the networks of `chute` and `network`): hostapd's socket refuses (a 503: it was
 *   killed), and iw lists no station (no access point runs).
 * The leases are always as recorded (dnsmasq runs on). A network without the resource a fault needs
 * (no host interface, no control socket recorded) answers as it would without the fault.
 */
export function faultyNetworks(device: Pick<Device, 'network'> & DeviceSources, active: () => readonly DeviceFault[], timeoutMs: number): Device['network'] {
  /** The state of iw and hostapd for one network under the faults active now. */
  async function states(target: NetworkTarget): Promise<{ iw: IwState; hostapd: HostapdState }> {
    const faults = active();
    const has = (kind: DeviceFault['device']) => faults.some((fault) => fault.device === kind);
    const hostapdDown = faults.some((fault) => fault.device === 'hostapd-down' && hits(fault, target));
    const radioFaults = faults.filter((fault) => fault.device === 'radio-gone');
    const radio = radioFaults.length === 0 ? null : await radioOfNetwork(device, target);
    const radioGone = radio !== null && radioFaults.some((fault) => fault.radio === undefined || fault.radio === radio);
    return {
      iw: has('iw-hang') ? 'hangs' : radioGone ? 'gone' : hostapdDown ? 'no-ap' : null,
      hostapd: has('hostapd-cli-hang') ? 'hangs' : radioGone ? 'gone' : hostapdDown ? 'killed' : null,
    };
  }

  return (target) => {
    const host = device.network(target);
    const { hostInterface, hostapdControl: socket } = target;
    const wait = () => new Promise((resolve) => setTimeout(resolve, timeoutMs));

    /** `read` as iw answers it in its state now: what `noAp` answers where no access point runs. */
    function iw<T>(args: string[], read: () => Promise<T>, noAp: T): Promise<T> {
      // Asked at every read: without a fault, the read is handed on as it is.
      return hostInterface === null || active().length === 0 ? read() : iwUnder(args, read, noAp);
    }
    async function iwUnder<T>(args: string[], read: () => Promise<T>, noAp: T): Promise<T> {
      const state = (await states(target)).iw;
      if (state === 'hangs') await wait().then(() => Promise.reject(toolTimedOut('iw', timeoutMs)));
      if (state === 'gone') throw iwProblem(IW_NO_SUCH_DEVICE, hostInterface!, ['dev', hostInterface!, 'station', ...args]);
      return state === 'no-ap' ? noAp : read();
    }

    /** `call` as hostapd's control socket answers it in its state now; `late` is the 504 of a hanging hostapd_cli. */
    function hostapd<T>(call: () => Promise<T>, late: (socket: string) => HttpProblem): Promise<T> {
      return socket === null || active().length === 0 ? call() : hostapdUnder(call, late);
    }
    async function hostapdUnder<T>(call: () => Promise<T>, late: (socket: string) => HttpProblem): Promise<T> {
      const state = (await states(target)).hostapd;
      if (state === 'hangs') await wait().then(() => Promise.reject(late(socket!)));
      if (state === 'killed' || state === 'gone') throw connectProblem(state === 'killed' ? HOSTAPD_KILLED : HOSTAPD_GONE, socket!)!;
      return call();
    }
    const commandLate = (at: string) => hostapdLate(at, `within ${timeoutMs / 1000} s`);

    const faulty: NetworkHost = {
      stationDump: () => iw(['dump'], () => host.stationDump(), ''),
      stationGet: (mac) => iw(['get', mac], () => host.stationGet(mac), null),
      stationDel: (mac) => iw(['del', mac], () => host.stationDel(mac), false),
      leases: () => host.leases(),
      hostapd: (command) => hostapd(() => host.hostapd(command), commandLate),
      hostapdStations: () => hostapd(() => host.hostapdStations(), commandLate),
      hostapdEvents: (onEvent, onEnd): Promise<HostapdEvents> =>
        hostapd(
          () => host.hostapdEvents(onEvent, onEnd),
          (at) => hostapdAttachLate(at, timeoutMs),
        ),
    };
    return faulty;
  };
}

/** Whether a `hostapd-down` fault names this network: its chute (or every chute) and its network (or every network of the chute). */
function hits(fault: DeviceFault, target: NetworkTarget): boolean {
  return (fault.chute === undefined || fault.chute === target.chute) && (fault.network === undefined || fault.network === target.network);
}
