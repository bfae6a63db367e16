import { controllerClient } from '../runtime/controller/client.ts';
import { memoryProvisionStore, provisioning, type ProvisioningService, type StoredProvision, type TelemetrySettings } from '../runtime/config/provisioning.ts';
import { fakeController, type FakeController } from './fake-controller.ts';

export interface ScenarioProvisioningOptions {
  /** Makes one telemetry report, e.g. `() => telemetryReport(device)` (runtime/controller/telemetry.ts). */
  report: () => Promise<unknown>;
  /**
   * A real controller's base URL (`chutebox emulate --controller URL`): every request goes there,
   * whatever `pdserver` says, through the real fetch. Without it, the built-in `controller` answers.
   */
  controller?: string;
  /** The built-in controller to use when no `controller` URL is given (default: a new `fakeController()`). */
  fake?: FakeController;
  /** Provisioned from the start with this (default: not provisioned). */
  initial?: StoredProvision | null;
  /** The host configuration's `telemetry` at start (default `DEFAULT_TELEMETRY`). */
  telemetry?: TelemetrySettings;
  /** Milliseconds the controller has to answer (default 10 s). */
  timeoutMs?: number;
  /** Reports kept for delivery (default 100). */
  queueSize?: number;
  now?: () => number;
}

/** The emulator's provisioning, and the built-in controller it talks to (null with a `controller` URL). */
export type ScenarioProvisioning = ProvisioningService & { readonly fake: FakeController | null };

/**
 * Provisioning for the emulator and for tests: the runtime's own `provisioning` over a memory store
 * (what is provisioned lasts as long as this object; nothing is written), talking to a built-in fake
 * controller (see `fakeController`: any credentials but the apitoken `refuse` and the router id
 * `unknown-router` are accepted, reports are counted) or, with `controller`, to a real one at that
 * URL. Telemetry runs as on a device.
 *
 * @example
 * const provisioning = scenarioProvisioning({ report: () => telemetryReport(device) });
 * await provisioning.provision({ routerId: 'r1', apitoken: 't0k3n', pdserver: 'https://paradrop.org', wampRouter: 'ws://paradrop.org:9086/ws' });
 * provisioning.fake?.log().checks // 1
 */
export function scenarioProvisioning(options: ScenarioProvisioningOptions): ScenarioProvisioning {
  const fake = options.controller === undefined ? (options.fake ?? fakeController()) : null;
  const client = controllerClient({
    timeoutMs: options.timeoutMs,
    ...(fake === null ? { baseUrl: options.controller } : { fetch: fake.fetch }),
  });
  const service = provisioning({
    store: memoryProvisionStore(options.initial ?? null),
    client,
    report: options.report,
    telemetry: options.telemetry,
    queueSize: options.queueSize,
    now: options.now,
  });
  return Object.assign(service, { fake });
}
