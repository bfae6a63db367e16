import type { StoredChute } from '../../functions/core/device/index.ts';
import { environmentStrings, type Environment } from '../../functions/chutes/chute-config.ts';
import { mapping } from '../../functions/chutes/chute-record.ts';
import type { ChuteContainerSpec } from '../engine/docker.ts';

/**
 * The container of a chute: its image from the record's `image`, its environment from the
 * configuration and the record, then ParaDrop's `PARADROP_CHUTE_NAME` and `PARADROP_API_TOKEN` (the
 * chute's `token`, which opens its own chute's routes of the API), its ports and DNS from
 * `host_config`, its CPU weight from the record's `allocation.cpu_shares`.
 *
 * @throws Error when the record names no image.
 */
export function containerSpec(chute: StoredChute, networkMode: string, token: string): ChuteContainerSpec {
  const image = chute.record.image;
  if (typeof image !== 'string' || image === '') throw new Error(`the record of chute ${chute.name} names no image (field "image")`);
  const hostConfig = mapping(chute.config.host_config);
  const dns = hostConfig.dns;
  const cpuShares = mapping(chute.record.allocation).cpu_shares;
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
    cpuShares: Number.isInteger(cpuShares) && (cpuShares as number) >= 2 ? (cpuShares as number) : undefined,
  };
}

/** The scalar entries of a stored environment (what a container can get), as `Environment`. */
function scalars(value: unknown): Environment {
  const out: Environment = {};
  for (const [key, entry] of Object.entries(mapping(value))) {
    if (entry === null || ['string', 'number', 'boolean'].includes(typeof entry)) out[key] = entry as Environment[string];
  }
  return out;
}
