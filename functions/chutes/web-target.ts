import { CHUTE_LABEL, type Device } from '../core/device/index.ts';
import { HttpProblem } from '../core/problem.ts';
import { mapping } from './chute-record.ts';
import { loadChute } from './lookup.ts';
import { recordedReservations } from './network-reservations.ts';
import { isCompanion } from './services.ts';

/** Where a chute's web service answers: the container's address and its `web.port`. */
export interface WebTarget {
  host: string;
  port: number;
}

/**
 * Where the web service of a chute answers, for the proxy at `/chutes/<chute>/`: its `web.port` on
 * the address of its running container, the container's own on the engine's network, or else the
 * chute's address on the first of its networks (a container on network `none`).
 *
 * @param chute a validated chute name.
 * @throws HttpProblem 404 for a chute that is not installed or has no `web.port`, 503 when it does not
 *   run or the device knows no address of it.
 * @example
 * await chuteWebTarget(device, 'hello-world') // { host: '172.17.0.3', port: 8000 }
 */
export async function chuteWebTarget(device: Device, chute: string): Promise<WebTarget> {
  const stored = await loadChute(device, chute);
  const port = mapping(stored.config.web).port;
  if (!Number.isInteger(port) || (port as number) < 1 || (port as number) > 65535)
    throw new HttpProblem(404, `chute ${chute} serves no web page: its configuration has no web.port`);
  // The chute's own container runs its web.service; another service's shares its network, with no address of its own.
  const container = (await device.containers())?.find(
    (entry) => mapping(entry.Labels)[CHUTE_LABEL] === chute && !isCompanion(mapping(entry.Labels)) && entry.State === 'running',
  );
  if (container === undefined) throw new HttpProblem(503, `chute ${chute} is not running: its web page at port ${port} cannot be reached`);
  const networks = Object.values(mapping(mapping(container.NetworkSettings).Networks)).map((network) => mapping(network).IPAddress);
  const host =
    networks.find((address): address is string => typeof address === 'string' && address !== '') ??
    Object.values(recordedReservations(stored.cache)).find((reservation) => reservation.chuteAddress !== null)?.chuteAddress;
  if (host === undefined || host === null)
    throw new HttpProblem(503, `chute ${chute} has no address the device can reach: no engine network and no chute network`);
  return { host, port: port as number };
}
