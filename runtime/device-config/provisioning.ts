import { DEFAULT_TELEMETRY, type telemetrySettings } from '../../functions/config/host-config.ts';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { ProvisionCredentials, Provisioning, ProvisionStatus } from '../../functions/core/device/index.ts';
import { HttpProblem } from '../../functions/core/problem.ts';
import type { ControllerClient, RuntimeRelease } from '../controller/client.ts';
import type { PublishEvent } from '../events/buffer.ts';
import { telemetrySender, type SenderCounts, type Timers } from '../controller/telemetry.ts';
import { removeInterruptedWritesOnce, syncDir, writeFileAtomic } from '../state/atomic-write.ts';
import { readIfExists } from '../state/read-if-exists.ts';

/** The stored provisioning: the credentials the controller accepted, and when. */
export interface StoredProvision extends ProvisionCredentials {
  /** When they were stored (ISO 8601). */
  provisionedAt: string;
}

/** Where the provisioning is kept. */
export interface ProvisionStore {
  /** The stored provisioning, or null when there is none. */
  load(): Promise<StoredProvision | null>;
  save(record: StoredProvision): Promise<void>;
  /** Forgets it; nothing happens when there is none. */
  remove(): Promise<void>;
}

/** The host configuration's `telemetry` section with its defaults filled in (`telemetrySettings`). */
export type TelemetrySettings = ReturnType<typeof telemetrySettings>;

/** The file name of the provisioning in the state dir: `<state>/provision.json`. */
export const PROVISION_FILE = 'provision.json';

/**
 * The provisioning kept in a JSON file (`<state>/provision.json`), mode 600 as it holds the apitoken,
 * replaced atomically. Its folder is made when missing. Before its first load, save or removal (the
 * load at start), it removes the temporary files that a crash left of the file's writes
 * (`removeInterruptedWritesOnce`): copies of the apitoken.
 *
 * @throws Error from `load` when the file is there but is not a provisioning record (naming it).
 * @example
 * const store = fileProvisionStore(path.join(stateDir, PROVISION_FILE));
 */
export function fileProvisionStore(file: string): ProvisionStore {
  const ready = removeInterruptedWritesOnce(path.dirname(file), [path.basename(file)]);
  return {
    async load() {
      await ready();
      const text = await readIfExists(file);
      return text === null ? null : parseStoredProvision(text, file);
    },
    async save(record) {
      await ready();
      await mkdir(path.dirname(file), { recursive: true });
      await writeFileAtomic(file, `${JSON.stringify(storedFields(record), null, 2)}\n`, 0o600);
    },
    async remove() {
      await ready();
      await rm(file, { force: true });
      await syncDir(path.dirname(file));
    },
  };
}

/**
 * The provisioning kept in memory (the emulator, tests): it lasts as long as the store.
 *
 * @example
 * const store = memoryProvisionStore(); // not provisioned
 */
export function memoryProvisionStore(initial: StoredProvision | null = null): ProvisionStore {
  let record = initial === null ? null : storedFields(initial);
  return {
    async load() {
      return record === null ? null : { ...record };
    },
    async save(next) {
      record = storedFields(next);
    },
    async remove() {
      record = null;
    },
  };
}

const STORED_FIELDS = ['routerId', 'apitoken', 'pdserver', 'wampRouter', 'provisionedAt'] as const;

function storedFields(record: StoredProvision): StoredProvision {
  const { routerId, apitoken, pdserver, wampRouter, provisionedAt } = record;
  return { routerId, apitoken, pdserver, wampRouter, provisionedAt };
}

/** A provisioning record from its file: every field a non-empty string. */
function parseStoredProvision(text: string, file: string): StoredProvision {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error(`${file} is not JSON; provision the device again (POST /api/v1/config/provision) after removing it`);
  }
  const record = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  const bad = STORED_FIELDS.find((field) => typeof record[field] !== 'string' || record[field] === '');
  if (bad !== undefined) {
    throw new Error(`${file} has no ${bad} (a non-empty string); provision the device again (POST /api/v1/config/provision) after removing it`);
  }
  return storedFields(record as unknown as StoredProvision);
}

export interface ProvisioningOptions {
  store: ProvisionStore;
  client: ControllerClient;
  /** Makes one telemetry report, e.g. `() => telemetryReport(device)` (runtime/controller/telemetry.ts). */
  report: () => Promise<unknown>;
  /** The host configuration's `telemetry` at start (default `DEFAULT_TELEMETRY`); later ones through `configure`. */
  telemetry?: TelemetrySettings;
  /** Reports kept for delivery (setting `telemetry_queue_size`; default 100). */
  queueSize?: number;
  /** The clock, in milliseconds since the epoch (default `Date.now`). */
  now?: () => number;
  /** The timers of telemetry's interval and retries (default the real ones). */
  timers?: Timers;
  /** Where each delivery to the controller goes as a `controller.delivery` event: the check of credentials, each telemetry report. */
  publish?: PublishEvent;
  /** What the deliveries to the controller had come to before (a restored state): they go on from there. Default none. */
  deliveries?: DeliveryRecord;
}

/**
 * What the deliveries to the controller have come to: telemetry's counts, `lastSuccess` and
 * `lastError`, and whether the last exchange with the controller worked (`httpConnected`).
 */
export type DeliveryRecord = SenderCounts & { httpConnected: boolean };

/** Provisioning as the runtime and the emulator hold it: the Device facet, and what the lead wires. */
export interface ProvisioningService extends Provisioning {
  /**
   * Resolves once the stored provisioning is loaded (and telemetry started when due); rejects when the
   * store cannot be read. Await it at start to fail loudly; every other method waits for it too.
   */
  ready(): Promise<void>;
  /**
   * Applies the host configuration's `telemetry` (at start and after every host configuration
   * change): turning it off stops sending at once, turning it on (while provisioned) starts it; an
   * unchanged section changes nothing, another interval restarts the schedule.
   */
  configure(telemetry: TelemetrySettings): void;
  /**
   * Factory reset: stops telemetry at once (no timer left, a delivery in flight aborted, the queue and
   * its counters forgotten), then deletes the stored credentials (an unreadable file too). A
   * provisioning whose check is still running stores nothing (it answers 409).
   */
  clear(): Promise<void>;
  /** Stops telemetry for good (the runtime is stopping); the stored credentials stay. */
  stop(): void;
  /**
   * Sends one telemetry report now, outside the interval, counted as a scheduled one
   * (`TelemetrySender.sendNow`): how a device whose timers never fire (a fleet's on Lambda) reports.
   * Resolves true once it is delivered, false when it was not (`lastError` says why).
   *
   * @throws HttpProblem 409 when telemetry does not run: the device is not provisioned, or its host configuration disables it.
   */
  sendNow(): Promise<boolean>;
  /** What the deliveries to the controller have come to now: what a state keeps of them (`deliveries` restores it). */
  deliveries(): DeliveryRecord;
  /**
   * What an update of chutebox takes from the controller the device is provisioned with: the release
   * it offers and the release's archive, checked against its SHA-256 (`ControllerClient.release`,
   * `download`); null when it offers none.
   *
   * @throws HttpProblem 409 when the device is not provisioned; the client's 502 or 504.
   */
  release(): Promise<{ release: RuntimeRelease; archive: Uint8Array } | null>;
}

/** Why an update fails on a device that is not provisioned. */
export const NO_CONTROLLER = 'the device is not provisioned: no controller offers it a release (POST /api/v1/config/provision)';

/**
 * Provisioning with the cloud controller and the telemetry sent to it (see `Provisioning`,
 * `telemetrySender`). Credentials are stored only after the controller accepted them; posting new ones
 * replaces them the same way, and telemetry then goes to the new controller (reports already queued
 * too). `httpConnected` is whether the last exchange with the stored controller worked: the check that
 * stored the credentials, or a telemetry delivery since; a refused or failed check of other credentials
 * changes nothing, the status included. Telemetry runs while provisioned and `telemetry.enabled`.
 * Each check of credentials and each telemetry delivery attempt (not one a stop aborted) is published
 * as a `controller.delivery` event, with the reason of a failure.
 *
 * @example
 * const service = provisioning({ store: fileProvisionStore(file), client: controllerClient(), report: () => telemetryReport(device) });
 * await service.ready();
 * service.configure({ enabled: true, interval: 60 });
 */
export function provisioning(options: ProvisioningOptions): ProvisioningService {
  const now = options.now ?? Date.now;
  let stored: StoredProvision | null = null;
  let settings: TelemetrySettings = { ...(options.telemetry ?? DEFAULT_TELEMETRY) };
  let httpConnected = options.deliveries?.httpConnected ?? false;
  let loaded = false;
  let stopped = false;
  /** Increases at every clear: a check begun before it stores nothing. */
  let generation = 0;
  /** Store writes, one after another. */
  let writes: Promise<unknown> = Promise.resolve();

  const sender = telemetrySender({
    report: options.report,
    deliver: (report, signal) =>
      stored === null ? Promise.reject(new Error('the device is not provisioned')) : options.client.sendReport(stored, report, signal),
    queueSize: options.queueSize,
    now,
    timers: options.timers,
    ...(options.deliveries === undefined ? {} : { counts: options.deliveries }),
    onAttempt: (error) => {
      httpConnected = error === null;
      delivered('telemetry', error);
    },
  });

  function applyTelemetry(): void {
    if (loaded && !stopped && stored !== null && settings.enabled) sender.start(settings.interval);
    else sender.stop();
  }

  /** Publishes how a delivery to the controller went. */
  function delivered(what: 'provisioning' | 'telemetry', error: string | null): void {
    options.publish?.({ kind: 'controller.delivery', what, success: error === null, error });
  }

  let loadError: { error: unknown } | null = null;
  const loading = options.store.load().then(
    (record) => {
      if (generation === 0) stored = record;
      loaded = true;
      applyTelemetry();
    },
    (error: unknown) => {
      loadError = { error };
      loaded = true;
    },
  );

  /** Waits for the stored state; throws why it could not be read, unless a clear has removed it since. */
  async function whenLoaded(): Promise<void> {
    await loading;
    if (loadError !== null && generation === 0) throw loadError.error;
  }

  function exclusive<T>(work: () => Promise<T>): Promise<T> {
    const result = writes.then(work);
    // Settled with nothing, not with the answer: the queue keeps no result for the device's life.
    writes = result.then(
      () => {},
      () => {},
    );
    return result;
  }

  /** The status once the stored state is loaded. */
  function status(): Promise<ProvisionStatus> {
    return loading.then(statusNow);
  }

  function statusNow(): ProvisionStatus {
    if (loadError !== null && generation === 0) throw loadError.error;
    return {
      provisioned: stored !== null,
      routerId: stored?.routerId ?? null,
      pdserver: stored?.pdserver ?? null,
      wampRouter: stored?.wampRouter ?? null,
      httpConnected: stored !== null && httpConnected,
      wampConnected: false,
      provisionedAt: stored?.provisionedAt ?? null,
      telemetry: { enabled: stored !== null && settings.enabled, interval: settings.interval, ...sender.status() },
    };
  }

  const cleared = () => new HttpProblem(409, 'provisioning was cleared (a factory reset) while the controller checked the credentials; nothing was stored');

  return {
    ready: whenLoaded,
    status,

    async provision(credentials) {
      await whenLoaded();
      const started = generation;
      await options.client.check(credentials).catch((error: unknown) => {
        delivered('provisioning', error instanceof Error ? error.message : String(error));
        throw error;
      });
      delivered('provisioning', null);
      await exclusive(async () => {
        if (started !== generation) throw cleared();
        const { routerId, apitoken, pdserver, wampRouter } = credentials;
        const record: StoredProvision = { routerId, apitoken, pdserver, wampRouter, provisionedAt: new Date(now()).toISOString() };
        await options.store.save(record);
        if (started !== generation) throw cleared(); // the clear queued behind this write removes it
        stored = record;
        httpConnected = true;
        applyTelemetry();
      });
      return status();
    },

    async verifyCloudUser(token) {
      await whenLoaded();
      if (stored === null)
        throw new HttpProblem(409, 'the device is not provisioned with a controller (POST /api/v1/config/provision): no controller can vouch for the token');
      return options.client.verifyUser(stored, token);
    },

    configure(telemetry) {
      settings = { enabled: telemetry.enabled, interval: telemetry.interval };
      applyTelemetry();
    },

    async clear() {
      generation += 1;
      sender.reset();
      stored = null;
      httpConnected = false;
      await loading;
      await exclusive(() => options.store.remove());
    },

    stop() {
      stopped = true;
      sender.stop();
    },

    async sendNow() {
      await whenLoaded();
      if (!sender.running()) throw new HttpProblem(409, 'telemetry does not run: the device is not provisioned, or its host configuration disables it');
      return sender.sendNow();
    },

    deliveries() {
      const { queued: _, ...counts } = sender.status();
      return { ...counts, httpConnected: stored !== null && httpConnected };
    },

    async release() {
      await whenLoaded();
      const credentials = stored;
      if (credentials === null) throw new HttpProblem(409, NO_CONTROLLER);
      const release = await options.client.release(credentials);
      return release === null ? null : { release, archive: await options.client.download(credentials, release) };
    },
  };
}
