import type { StoredChute } from '../../functions/core/device/index.ts';
import { environmentStrings, type Environment } from '../../functions/chutes/chute-config.ts';
import { mapping } from '../../functions/chutes/chute-record.ts';
import { mainService, storedServices, type ChuteService } from '../../functions/chutes/services.ts';
import type { ChuteContainerSpec } from '../engine/docker.ts';

/**
 * The container of a chute: its image from the record's `image`, its environment from the
 * configuration and the record, then ParaDrop's `PARADROP_CHUTE_NAME` and `PARADROP_API_TOKEN` (the
 * chute's `token`, which opens its own chute's routes of the API), its ports and DNS from
 * `host_config`, its CPU weight from the record's `allocation.cpu_shares`, its command from its main
 * service's.
 *
 * @throws Error when the record names no image.
 */
export function containerSpec(chute: StoredChute, networkMode: string, token: string): ChuteContainerSpec {
  const image = chute.record.image;
  if (typeof image !== 'string' || image === '') throw new Error(`the record of chute ${chute.name} names no image (field "image")`);
  const hostConfig = mapping(chute.config.host_config);
  const dns = hostConfig.dns;
  return {
    image,
    env: {
      ...environmentStrings(scalars(chute.config.environment)),
      ...environmentStrings(scalars(chute.record.environment)),
      PARADROP_CHUTE_NAME: chute.name,
      PARADROP_API_TOKEN: token,
    },
    portBindings: mapping(hostConfig.port_bindings) as Record<string, string | number>,
    dns: Array.isArray(dns) ? dns.filter((server): server is string => typeof server === 'string') : undefined,
    networkMode,
    cpuShares: cpuWeight(chute),
    ...commandOf(mainService(chute.record)),
    ...mainServiceLabel(chute),
  };
}

/**
 * The container of a chute's service other than its main one: its image and command, the chute's
 * record environment then its own, then the chute's `PARADROP_CHUTE_NAME` and `PARADROP_API_TOKEN`
 * as its main container has them, the chute's CPU weight, in the network namespace of the chute's
 * container `main` (so on every network of the chute; ports and DNS are that container's).
 */
export function companionSpec(chute: StoredChute, service: string, entry: ChuteService, main: string, token: string): ChuteContainerSpec {
  if (entry.image === null) throw new Error(`the record of chute ${chute.name} names no image for its service ${service}`);
  return {
    image: entry.image,
    env: { ...environmentStrings(scalars(chute.record.environment)), ...entry.environment, PARADROP_CHUTE_NAME: chute.name, PARADROP_API_TOKEN: token },
    portBindings: {},
    dns: undefined,
    networkMode: `container:${main}`,
    cpuShares: cpuWeight(chute),
    service,
    ...commandOf(entry),
  };
}

/** `{ mainService }` of a chute installed with services, which labels its container with its main service's name. */
function mainServiceLabel(chute: StoredChute): { mainService?: string } {
  const services = storedServices(chute.record);
  return services === null ? {} : { mainService: services.main };
}

/** The record's `allocation.cpu_shares` when the engine takes it (at least 2), else undefined. */
function cpuWeight(chute: StoredChute): number | undefined {
  const cpuShares = mapping(chute.record.allocation).cpu_shares;
  return Number.isInteger(cpuShares) && (cpuShares as number) >= 2 ? (cpuShares as number) : undefined;
}

/** `{ command }` of a service that names one; a light service's is in the Dockerfile chutebox wrote. */
function commandOf(entry: ChuteService | undefined): { command?: string | string[] } {
  return entry?.command === undefined || entry.type === 'light' ? {} : { command: entry.command };
}

/** The scalar entries of a stored environment (what a container can get), as `Environment`. */
function scalars(value: unknown): Environment {
  const out: Environment = {};
  for (const [key, entry] of Object.entries(mapping(value))) {
    if (entry === null || ['string', 'number', 'boolean'].includes(typeof entry)) out[key] = entry as Environment[string];
  }
  return out;
}
