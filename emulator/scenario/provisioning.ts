import * as z from 'zod/mini';
import { TelemetryStatusSchema } from '../../functions/config/schemas.ts';
import { controllerClient } from '../../runtime/controller/client.ts';
import {
  memoryProvisionStore,
  provisioning,
  type ProvisioningOptions,
  type ProvisioningService,
  type ProvisionStore,
  type StoredProvision,
  type TelemetrySettings,
} from '../../runtime/device-config/provisioning.ts';
import type { DeviceFault } from '../faults/device-fault.ts';
import { checkDiskSpace, unreachableController } from '../faults/storage-and-controller.ts';
import { fakeController, type FakeController } from './fake-controller.ts';

const filled = z.string().check(z.minLength(1, 'must not be empty'));

/** What the deliveries to the controller came to (`DeliveryRecord`): telemetry's counts and `httpConnected`. */
const DeliveryRecordSchema = z.extend(z.omit(TelemetryStatusSchema, { enabled: true, interval: true, queued: true }), { httpConnected: z.boolean() });

/**
 * Provisioning's part of an emulator state (emulator/emulator-state.ts): what is stored, or null when
 * the device is not provisioned, and what its deliveries to the controller came to (`deliveries`,
 * absent in a state taken before chutebox kept them: they start afresh). The apitoken is left out: it
 * is a secret of the controller's.
 */
export const ProvisioningStateSchema = z.nullable(
  z.strictObject({
    routerId: filled,
    pdserver: filled,
    wampRouter: filled,
    provisionedAt: z.iso.datetime(),
    deliveries: z.optional(DeliveryRecordSchema),
  }),
);
export type ProvisioningState = z.infer<typeof ProvisioningStateSchema>;

/**
 * The apitoken of a provisioning restored from a state that this process did not store: the
 * placeholder chutebox shows for a secret. The built-in fake controller takes any token but `refuse`,
 * so telemetry goes on; a real controller (`--controller`) refuses it until the device is provisioned again.
 */
export const RESTORED_APITOKEN = '[redacted]';

/**
 * The apitokens of the provisionings stored in this process, by provisioning (`ProvisioningState`
 * as JSON), in memory only: a state restored in the process that took it gets its apitoken back.
 */
export type ApitokenMemory = Map<string, string>;

export interface ScenarioProvisioningOptions {
  /** Makes one telemetry report, e.g. `() => telemetryReport(device)` (runtime/controller/telemetry.ts). */
  report: () => Promise<unknown>;
  /**
   * A real controller's base URL (`chutebox emulate --controller URL`): every request goes there,
   * whatever `pdserver` says, through the real fetch. Without it, the built-in `controller` answers.
   */
  controller?: string;
  /** How requests to the `controller` URL are made (default the global fetch). */
  fetch?: typeof globalThis.fetch;
  /** The built-in controller to use when no `controller` URL is given (default: a new `fakeController()`). */
  fake?: FakeController;
  /** Provisioned from the start with this (default: not provisioned). */
  initial?: StoredProvision | null;
  /**
   * Provisioned from the start as a snapshot says (instead of `initial`), with the apitoken that
   * `apitokens` remembers for it, else `RESTORED_APITOKEN`.
   */
  state?: ProvisioningState;
  /** Where the apitoken of each provisioning stored is remembered, and looked up for `state`; default one of its own. */
  apitokens?: ApitokenMemory;
  /** The host configuration's `telemetry` at start (default `DEFAULT_TELEMETRY`). */
  telemetry?: TelemetrySettings;
  /** Milliseconds the controller has to answer (default 10 s). */
  timeoutMs?: number;
  /** Reports kept for delivery (default 100). */
  queueSize?: number;
  now?: () => number;
  /** The timers of telemetry's interval and retries (default the real ones): the emulated clock's. */
  timers?: ProvisioningOptions['timers'];
  /** Where each delivery to the controller goes as a `controller.delivery` event (the device's events). */
  publish?: ProvisioningOptions['publish'];
  /** The device faults active now: `controller-unreachable` fails every request to the controller, `disk-full` the storing of credentials. */
  faults?: () => readonly DeviceFault[];
}

/** The emulator's provisioning, and the built-in controller it talks to (null with a `controller` URL). */
export type ScenarioProvisioning = ProvisioningService & {
  readonly fake: FakeController | null;
  /** What is stored now, without the apitoken, and what the deliveries to the controller came to. */
  snapshot(): ProvisioningState;
};

/**
 * Provisioning for the emulator and for tests: the runtime's own `provisioning` over a memory store
 * (what is provisioned lasts as long as this object; nothing is written), talking to a built-in fake
 * controller (see `fakeController`: any credentials but the apitoken `refuse` and the router id
 * `unknown-router` are accepted, reports are counted) or, with `controller`, to a real one at that
 * URL. Telemetry runs as on a device. `snapshot()` answers what is stored, without the apitoken, and
 * what the deliveries came to; `state` starts from a snapshot (a restore makes provisioning anew:
 * telemetry's counts and whether the last exchange with the controller worked go on from the
 * snapshot's, its queue starts empty, as after a restart).
 *
 * @example
 * const provisioning = scenarioProvisioning({ report: () => telemetryReport(device) });
 * await provisioning.provision({ routerId: 'r1', apitoken: 't0k3n', pdserver: 'https://paradrop.org', wampRouter: 'ws://paradrop.org:9086/ws' });
 * provisioning.fake?.log().checks // 1
 */
export function scenarioProvisioning(options: ScenarioProvisioningOptions): ScenarioProvisioning {
  const fake = options.controller === undefined ? (options.fake ?? fakeController()) : null;
  const faults = options.faults ?? (() => []);
  const fetch: typeof globalThis.fetch = fake?.fetch ?? options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const client = controllerClient({
    timeoutMs: options.timeoutMs,
    fetch: unreachableController(fetch, faults),
    ...(fake === null ? { baseUrl: options.controller } : {}),
  });
  const apitokens = options.apitokens ?? new Map<string, string>();
  const initial =
    options.state === undefined
      ? (options.initial ?? null)
      : options.state === null
        ? null
        : { ...stateOf(options.state), apitoken: apitokens.get(apitokenKey(options.state)) ?? RESTORED_APITOKEN };
  const store = memoryProvisionStore(initial);
  let stored: ProvisioningState = initial === null ? null : stateOf(initial);
  /** The memory store, and what it holds now for `snapshot()`; each apitoken stored is remembered. */
  const tracked: ProvisionStore = {
    load: () => store.load(),
    async save(record) {
      checkDiskSpace(faults);
      await store.save(record);
      stored = stateOf(record);
      apitokens.set(apitokenKey(stored), record.apitoken);
    },
    async remove() {
      await store.remove();
      stored = null;
    },
  };
  const service = provisioning({
    store: tracked,
    client,
    report: options.report,
    telemetry: options.telemetry,
    queueSize: options.queueSize,
    now: options.now,
    timers: options.timers,
    publish: options.publish,
    ...(options.state?.deliveries === undefined ? {} : { deliveries: options.state.deliveries }),
  });
  return Object.assign(service, { fake, snapshot: () => (stored === null ? null : { ...stored, deliveries: service.deliveries() }) });
}

/** A stored provisioning without its apitoken (nor what its deliveries came to). */
function stateOf(record: Omit<StoredProvision, 'apitoken'>): NonNullable<ProvisioningState> {
  const { routerId, pdserver, wampRouter, provisionedAt } = record;
  return { routerId, pdserver, wampRouter, provisionedAt };
}

/** What a provisioning's apitoken is remembered by in an `ApitokenMemory`. */
export function apitokenKey(state: NonNullable<ProvisioningState>): string {
  return JSON.stringify([state.routerId, state.pdserver, state.wampRouter, state.provisionedAt]);
}
