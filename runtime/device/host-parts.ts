import type { Device } from '../../functions/core/device/index.ts';
import { HttpProblem } from '../../functions/core/problem.ts';
import type { HostChutes, HostChutesOptions } from '../chutes/host-chutes.ts';
import type { ConfigFacetOptions, ConfigFacets } from '../device-config/index.ts';
import type { PublishEvent } from '../events/buffer.ts';

/** What the host Device's facets share: where its state is, its chutes, the engine's socket, the bundles it loads on first use. */
export interface HostParts {
  /** The runtime's state folder. */
  stateDir: string;
  /** `<stateDir>/chutes`, the installed chutes (JSON). */
  chutesDir: string;
  /** Reads them. */
  chutes: Pick<Device, 'chuteNames' | 'chute'>;
  /** The Docker Engine API socket. */
  socketPath: string;
  engine: EngineClient;
  /** The host's work on its chutes, from the chute-lifecycle bundle, made once on first use; null when the bundle cannot be loaded. */
  chutesOnEngine: () => Promise<HostChutes | null>;
  /** The device configuration, from its bundle. */
  config: DeviceConfig;
  /** Reports the device's events. */
  publish: PublishEvent;
}

/** The engine client: the chute-lifecycle bundle (dist/chute-lifecycle.mjs), loaded on first use; null when it cannot be loaded. */
export type EngineClient = () => Promise<typeof import('../chutes/chute-lifecycle.entry.ts') | null>;

/** The engine client (dist/chute-lifecycle.mjs), loaded once on first use; null (logged) when its bundle cannot be loaded. */
export function engineClient(): EngineClient {
  let loading: Promise<typeof import('../chutes/chute-lifecycle.entry.ts') | null> | undefined;
  return () =>
    (loading ??= import('../chutes/chute-lifecycle.entry.ts').catch((error: unknown) => {
      console.error('the container engine client (chute-lifecycle.mjs) cannot be loaded:', error);
      return null;
    }));
}

/**
 * The engine client, loaded.
 *
 * @throws HttpProblem 503 when its bundle cannot be loaded.
 */
export async function loadedEngine(engine: EngineClient): Promise<NonNullable<Awaited<ReturnType<EngineClient>>>> {
  const client = await engine();
  if (client === null) throw new HttpProblem(503, 'the container engine client cannot be loaded');
  return client;
}

/** The host's work on its chutes (`hostChutes`), made once with the chute-lifecycle bundle's code on first use; null when it cannot be loaded. */
export function chutesOnEngine(engine: EngineClient, options: HostChutesOptions): () => Promise<HostChutes | null> {
  let made: Promise<HostChutes | null> | undefined;
  return () => (made ??= engine().then((client) => client?.hostChutes(options) ?? null));
}

/** The device configuration (dist/device-config.mjs), loaded once on first use and started once. */
export interface DeviceConfig {
  /** The configuration, loaded (the accounts need no start: `chutebox record` reads them without starting anything). */
  loaded(): Promise<ConfigFacets>;
  /**
   * The configuration once started (`ConfigFacets.start`: an update cut short undone, pdconf rendered
   * and applied, telemetry started), which happens once: `recover` starts it without waiting, so the
   * API listens meanwhile, and whatever reads the configuration waits for it.
   */
  started(): Promise<ConfigFacets>;
  /** The configuration as it loads, or undefined when nothing asked for it yet. */
  ifLoading(): Promise<ConfigFacets> | undefined;
}

/** The device configuration made with `options`, loaded from its bundle on first use. */
export function deviceConfig(options: ConfigFacetOptions): DeviceConfig {
  let loading: Promise<ConfigFacets> | undefined;
  let starting: Promise<ConfigFacets> | undefined;
  const loaded = () => (loading ??= import('../device-config/index.ts').then((bundle) => bundle.configFacets(options)));
  return {
    loaded,
    started: () =>
      (starting ??= loaded().then(async (facets) => {
        await facets.start();
        return facets;
      })),
    ifLoading: () => loading,
  };
}
