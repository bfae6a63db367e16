import { listen } from '../../runtime/http/listen.ts';
import type { startDaemonLog } from '../../runtime/log/daemon-log.ts';
import { EMULATOR_ACCOUNT } from '../app.ts';
import { stopOnSignals } from '../stop-on-signals.ts';
import { CONTROLLER_PATH, FLEET_PATH } from './fleet-app.ts';
import { deviceId } from './members.ts';
import { fleetServer, type FleetServerOptions } from './start-fleet.ts';

/** What `chutebox emulate --fleet` serves, its daemon log, and where it listens. */
export interface ServeFleetOptions extends FleetServerOptions {
  log: ReturnType<typeof startDaemonLog>;
  address: { host: string; port: number };
}

/**
 * `chutebox emulate --fleet N`: the fleet over HTTP. When ready it prints exactly one line `listening
 * on http://HOST:PORT`, then the fleet's size, seed and scenarios and where a device answers; it stops
 * on SIGINT or SIGTERM.
 */
export async function serveFleet(options: ServeFleetOptions): Promise<void> {
  const { log } = options;
  const { app, fleet, outbound } = await fleetServer({ ...options, logs: log.ring, ...(log.requests === undefined ? {} : { answered: log.requests }) });
  const server = await listen(app, options.address);
  const provisioning = outbound();
  const { size, seed, scenarios } = fleet.spec;
  const mix = scenarios.map((each) => `${each.scenario} (share ${each.share})`).join(', ');
  const first = `${server.url}/devices/${deviceId(0)}`;
  process.stdout.write(
    `listening on ${server.url}\n` +
      `fleet of ${size} devices, seed ${seed}${options.still ? ', the living networks still (--still)' : ''}: ${mix}\n` +
      `devices: GET ${server.url}${FLEET_PATH}; a device's API at ${first}/api/v1/…, its admin routes at ${first}/_chutebox/…\n` +
      (options.provision === false
        ? ''
        : `each device provisions with ${options.controller ?? 'the built-in controller'} within ${(options.provisionSpreadMs ?? 60_000) / 1000} s, then sends telemetry: GET ${server.url}${CONTROLLER_PATH}\n`) +
      (options.domain === undefined ? '' : `a device also answers by host: Host: ${deviceId(0)}.${options.domain}\n`) +
      (options.auth === false
        ? 'authentication is off: requests are served without credentials when they name the emulator localhost or a loopback address and come from no web page of another origin\n'
        : `log in on a device: curl -s -X POST ${first}/api/v1/auth/local -H 'content-type: application/json' -d '${JSON.stringify(EMULATOR_ACCOUNT)}'\n`),
  );
  log.write('info', 'listening', { url: server.url, fleet: size, seed, scenarios });
  stopOnSignals(server, log, () => {
    provisioning?.stop();
    fleet.stop();
  });
}
