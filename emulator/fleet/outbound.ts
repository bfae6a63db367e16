import type { ProvisionCredentials } from '../../functions/core/device/index.ts';
import { draw } from '../seeded.ts';
import type { Fleet } from './fleet.ts';
import { deviceId, fleetMember, type FleetMember } from './members.ts';

/** The controller a fleet's devices name when they talk to the built-in fake one (any base URL reaches it). */
export const FAKE_CONTROLLER_URL = 'https://controller.fleet.invalid';

/** Within how many milliseconds of a fleet's start its devices provision, unless told: telemetry's default interval. */
export const PROVISION_SPREAD_MS = 60_000;

/** How a fleet's devices provision themselves at start, as devices in the field do on their first boot. */
export interface FleetOutboundOptions {
  fleet: Fleet;
  /** The controller's base URL; default the built-in fake controller. */
  controller?: string | undefined;
  /** Each device provisions at a time drawn from the fleet's seed within this many milliseconds of start. */
  spreadMs: number;
  /** At most this many provisionings run at once. */
  concurrency: number;
}

/** The provisioning of a fleet under way: how far it got, and how to stop what is not started yet. */
export interface FleetOutbound {
  progress(): { provisioned: number; failed: number; waiting: number };
  stop(): void;
}

/**
 * Provisions every device of a fleet with one controller, each at its own time within `spreadMs`
 * (drawn from the fleet's seed and the device's index), at most `concurrency` at once; from then on
 * each device sends its telemetry at its host configuration's interval, on its own clock, as one
 * device does (`POST /api/v1/config/provision`). A device is built when its time comes, and leaves
 * again once provisioned: held, the fleet builds it when its next report falls due (`Fleet.visit`).
 *
 * @example
 * const outbound = provisionFleet({ fleet, spreadMs: 60_000, concurrency: 64 });
 * outbound.progress(); // { provisioned: 412, failed: 0, waiting: 9588 }
 */
export function provisionFleet(options: FleetOutboundOptions): FleetOutbound {
  const { fleet } = options;
  const counts = { provisioned: 0, failed: 0 };
  const due: number[] = [];
  let running = 0;
  let stopped = false;
  const timers = new Set<ReturnType<typeof setTimeout>>();

  /** Starts what is due, as long as fewer than `concurrency` run. */
  function pump(): void {
    while (!stopped && running < options.concurrency && due.length > 0) {
      const member = fleetMember(fleet.spec, due.shift()!);
      running += 1;
      void provisionOne(fleet, member, options.controller ?? FAKE_CONTROLLER_URL)
        .then(
          () => void (counts.provisioned += 1),
          () => void (counts.failed += 1),
        )
        .finally(() => {
          running -= 1;
          pump();
        });
    }
  }

  for (let index = 0; index < fleet.spec.size; index++) {
    const timer = setTimeout(
      () => {
        timers.delete(timer);
        due.push(index);
        pump();
      },
      provisionDelayMs(fleet.spec.seed, index, options.spreadMs),
    );
    timer.unref();
    timers.add(timer);
  }
  return {
    progress: () => ({ ...counts, waiting: timers.size + due.length + running }),
    stop() {
      stopped = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
    },
  };
}

/** Provisions one device with its own credentials (`fleetCredentials`): built for it, it leaves again once provisioned, unless a request used it meanwhile. */
async function provisionOne(fleet: Fleet, member: FleetMember, controller: string): Promise<void> {
  await fleet.visit(member.id, async (device) => {
    device.wrote();
    await device.scenario.device.provisioning.provision(fleetCredentials(member, controller));
  });
}

/**
 * When the device at `index` of a fleet provisions, in milliseconds after the fleet's start: drawn
 * from the fleet's seed within `spreadMs`, the same in `emulate --fleet` and on Lambda.
 */
export function provisionDelayMs(fleetSeed: number, index: number, spreadMs: number): number {
  return Math.floor(draw(fleetSeed, 'provision', index) * spreadMs);
}

/**
 * The credentials a fleet's device provisions itself with: its id as the router id, an apitoken drawn
 * from its seed, and the controller's URL (`FAKE_CONTROLLER_URL` for the built-in one).
 *
 * @example
 * fleetCredentials(fleetMember(spec, 3), 'https://controller.example.com').routerId; // 'router-3'
 */
export function fleetCredentials(member: FleetMember, controller: string): ProvisionCredentials {
  const apitoken = Math.floor(draw(member.seed, 'apitoken') * 2 ** 52).toString(16);
  return { routerId: deviceId(member.index), apitoken, pdserver: controller, wampRouter: `${controller.replace(/^http/, 'ws')}/ws` };
}

/** `fetch` with at most `most` requests in flight; the others wait their turn, each handed the slot of one that ends. */
export function limitedFetch(fetch: typeof globalThis.fetch, most: number): typeof globalThis.fetch {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async (input, init) => {
    if (running < most) running += 1;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await fetch(input, init);
    } finally {
      const next = waiting.shift();
      if (next === undefined) running -= 1;
      else next();
    }
  };
}
