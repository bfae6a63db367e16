import type { ChuteServices } from './chute-services.ts';
/** The change log of a device: changes are queued, run one after another per chute, and kept. */
export interface DeviceChanges {
  /**
   * Queues a change to a chute. It runs in the background, after every earlier change to the same
   * chute; this answers at once with its record (state `queued`).
   */
  submitChange(request: ChangeRequest): Promise<ChangeRecord>;
  /** One change, or null when there is none with that id. */
  change(id: number): Promise<ChangeRecord | null>;
  /** Every change, oldest first. */
  changes(): Promise<ChangeRecord[]>;
}

/**
 * What a change asks for; what each does on the device and in the emulator is its effect
 * (runtime/chutes/lifecycle.ts, runtime/device-config/, emulator/scenario/changes.ts), and what a user sees
 * is in docs/api/changes.md. A `config` keeps the `[redacted]` placeholders of the PUT: the effect
 * resolves them when it runs (`resolvePlaceholders`) and fails, changing nothing, when one has no
 * secret behind it any more.
 */
export type ChangeRequest =
  /** Start the chute's container (made again with a new `environment`, which the record keeps); or stop it first. */
  | { action: 'start' | 'restart'; chute: string; environment?: Record<string, string> }
  /** Store and apply a host configuration (pdconf); the previous one comes back when that fails. */
  | { action: 'update-hostconfig'; config: Record<string, unknown> }
  /**
   * Take the release of chutebox the controller offers, check it and make it the one the device runs
   * next (`POST /api/v1/config/startUpdate`, docs/decisions/0062-updates-and-snapd.md); the emulator
   * takes and checks it, and only says it would install it.
   */
  | { action: 'update-runtime' }
  /** Reboot or power off the device itself (ParaDrop's `ROUTER` updates); the emulator only says it would. */
  | { action: 'reboot' }
  | { action: 'shutdown' }
  /** Stop the chute's container; or stop and remove it, then the chute's stored documents. */
  | { action: 'stop' | 'delete'; chute: string }
  /** Store a new chute configuration and recreate the container; the previous one comes back when that fails. */
  | { action: 'update-config'; chute: string; config: Record<string, unknown> }
  /** Store a new chute and run its container; nothing is left when a step fails. */
  | ({ action: 'install' } & ChuteInstall)
  /** Build a chute's new source, then replace its image, record and configuration as `update-config` does. */
  | ({ action: 'update' } & ChuteUpdate);

/**
 * What an install stores: the chute record's fields (`image`, `version`, `environment`, `allocation`)
 * and its configuration.
 *
 * @example
 * { chute: 'hello', image: 'hello-world:1', version: '1', config: { web: { port: 80 } }, environment: { MODE: 'demo' }, allocation: { cpu_shares: 512 } }
 */
export interface ChuteInstall {
  chute: string;
  /**
   * A Docker image reference (`repo[:tag]` or `repo@sha256:…`) of an image already in the engine;
   * null when the change builds it from `source`.
   */
  image: string | null;
  /** The chute's source, a tar with its Dockerfile at its root: the build context of its image (with `image` null). */
  source?: Uint8Array;
  /** The installed version label; null when the client gave none. */
  version: string | null;
  /** The chute configuration (`service.json`), validated. */
  config: Record<string, unknown>;
  /** Variables of the chute record, given to the container after the configuration's. */
  environment: Record<string, string>;
  /** `{ cpu_shares?, prioritize_traffic?, … }` as the client gave it. */
  allocation: Record<string, unknown>;
  /** The services of a chute installed from its source (functions/chutes/services.ts); none: one container from `image`. */
  services?: ChuteServices;
  /** paradrop.yaml's `owner`. */
  owner?: string | null;
}

/**
 * What an update from a chute's source replaces: the record's `version` and `environment`, the
 * configuration, and the image, built from `source` (a tar with its Dockerfile at its root). The
 * record's `allocation` stays.
 */
export interface ChuteUpdate {
  chute: string;
  version: string | null;
  config: Record<string, unknown>;
  environment: Record<string, string>;
  source: Uint8Array;
  /** The services of the new source, which replace the record's; none: one container built from the source's root. */
  services?: ChuteServices;
  /** paradrop.yaml's `owner`. */
  owner?: string | null;
}

/** The actions a change can ask for. */
export type ChangeAction = ChangeRequest['action'];

/** The actions that change a chute: those whose request names one. */
export type ChuteAction = Extract<ChangeRequest, { chute: string }>['action'];

/** The actions that change the device itself: a host configuration, chutebox's own release, a reboot, a shutdown. */
export type DeviceAction = Exclude<ChangeAction, ChuteAction>;

/** The changes that stop the whole device: the runtime stops with it. */
export type DevicePowerAction = 'reboot' | 'shutdown';

/**
 * The chute a change is about, or null for a change to the device itself.
 *
 * @example
 * changeSubject({ action: 'stop', chute: 'hello' })            // 'hello'
 * changeSubject({ action: 'update-hostconfig', config: {} })  // null
 * changeSubject({ action: 'reboot' })                           // null
 */
export function changeSubject(request: ChangeRequest): string | null {
  return 'chute' in request ? request.chute : null;
}

/**
 * The queue a change waits in, after the changes before it in the same queue: its chute's, or `''`
 * for changes to the device itself (no chute name is empty).
 */
export function changeQueue(request: ChangeRequest): string {
  return changeSubject(request) ?? '';
}

/** queued → running → succeeded or failed. */
export type ChangeState = 'queued' | 'running' | 'succeeded' | 'failed';

/** A change and what happened to it. Times are ISO 8601 strings. */
export interface ChangeRecord {
  /** Increases by one with every change, across runtime restarts. */
  id: number;
  action: ChangeAction;
  /** The chute it is about; null for a change to the device (`update-hostconfig`, `reboot`, `shutdown`). */
  chute: string | null;
  state: ChangeState;
  created: string;
  updated: string;
  /** What happened, oldest first: `{ time, text }`. */
  messages: { time: string; text: string }[];
}
