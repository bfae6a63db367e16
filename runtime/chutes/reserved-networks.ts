import type { StoredChute } from '../../functions/core/device/index.ts';
import { mapping } from '../../functions/chutes/chute-record.ts';
import { cacheWithNetworks, networkChange, type NetworkChange, type NetworkReservation } from '../../functions/chutes/network-reservations.ts';
import type { LifecycleOptions } from './chute-work.ts';

/**
 * Runs `work` with the networks of a chute's `net` reserved, and gives the hold up when it is over
 * (by then the cache that records them is written, or the change failed).
 */
export async function withNetworks<T>(
  options: Pick<LifecycleOptions, 'reserve'>,
  change: NetworkChange,
  work: (networks: Record<string, NetworkReservation>) => Promise<T>,
): Promise<T> {
  const held = await options.reserve(change);
  try {
    return await work(held.networks);
  } finally {
    held.release();
  }
}

/** Runs `work` with the cache a chute has once its configuration is `config`: an unchanged network keeps what it holds. */
export function withCache<T>(
  options: Pick<LifecycleOptions, 'reserve'>,
  chute: StoredChute,
  config: Record<string, unknown>,
  work: (cache: Record<string, unknown>) => Promise<T>,
): Promise<T> {
  return withNetworks(options, networkChange(chute.name, config, chute), (networks) => work(cacheWithNetworks(chute.cache, networks)));
}

/** The networks `from` reserves that `to` does not hold the same way (removed, or reserved anew), by name. */
export function droppedNetworks(from: StoredChute, to: StoredChute): string[] {
  const kept = mapping(to.cache.networks);
  return Object.entries(mapping(from.cache.networks))
    .filter(([name, reservation]) => JSON.stringify(kept[name]) !== JSON.stringify(reservation))
    .map(([name]) => name);
}

/** The chute with only the named networks in its cache: what `down` is to remove. */
export function withNetworksOnly(chute: StoredChute, names: readonly string[]): StoredChute {
  const networks = mapping(chute.cache.networks);
  return { ...chute, cache: { ...chute.cache, networks: Object.fromEntries(names.map((name) => [name, networks[name]])) } };
}
