import type { ChuteInstall, StoredChute } from '../../functions/core/device/index.ts';
import { servicesOrRoot } from '../../functions/chutes/services.ts';
import { cacheWithNetworks, networkChange, reservationNotes, type NetworkReservation } from '../../functions/chutes/network-reservations.ts';
import type { Note } from '../changes/runner.ts';
import type { ChuteEngine } from '../engine/docker.ts';
import { onEngine, type ChuteAtWork, type LifecycleOptions } from './chute-work.ts';
import { shortId } from './container-steps.ts';
import { removeBuiltImage } from './image-build.ts';
import { recordState } from './recorded-state.ts';
import { buildServices, builtImages, serviceRecord } from './service-images.ts';
import { withNetworks } from './reserved-networks.ts';

/**
 * `install`: a new chute, its services' images first built from its source when it has one, its
 * container created and started, then its other services' containers; on failure, nothing of it is
 * left (nor the images it built).
 */
export async function install(options: LifecycleOptions, request: ChuteInstall, note: Note, change: number): Promise<void> {
  const { chutes, writer } = options;
  const name = request.chute;
  if ((await chutes.chute(name)) !== null) throw new Error(`a chute named ${name} is already installed`);
  const { engine, steps } = await onEngine(options, name, note);
  return withNetworks(options, networkChange(name, request.config, null), async (networks) => {
    const record =
      request.image === null ? serviceRecord(await servicesFromSource(engine, request, options.networkMode, note, change)) : { image: request.image };
    const chute = newChute(request, record, networks);
    for (const left of [...(await engine.companions(name)), ...(await engine.containers(name))]) {
      await engine.remove(name, left.Id);
      await note(`removed container ${shortId(left.Id)}, left behind by an earlier chute named ${name}`);
    }
    await writer.create(name, { chute: chute.record, service: chute.config, cache: chute.cache });
    await note(`stored chute ${name}`);
    for (const text of reservationNotes(networks)) await note(text);
    await startInstalled({ options, chute, engine, steps }, note, request.image === null ? builtImages(name, chute.record) : []);
    await recordState(engine, chutes, writer, name, note, 'running');
  });
}

/** The services of an install without an image, their images built from its source, tagged for change `change`. */
async function servicesFromSource(engine: ChuteEngine, request: ChuteInstall, networkMode: string, note: Note, change: number) {
  const name = request.chute;
  if (request.source === undefined) throw new Error(`the install of chute ${name} names no image and brings no source`);
  try {
    const build = { engine, chute: name, source: request.source, version: request.version, change, networkMode };
    return await buildServices(build, servicesOrRoot(request.services), note);
  } catch (error) {
    throw new Error(`${(error as Error).message}; chute ${name} is not installed`);
  }
}

/** The chute an install stores, `installing`, its image (and services) in its record, its networks' reservations in its cache. */
function newChute(request: ChuteInstall, images: Record<string, unknown>, networks: Record<string, NetworkReservation>): StoredChute {
  const { chute: name, version, environment, allocation, config, owner } = request;
  return {
    name,
    record: { name, version, state: 'installing', ...images, environment, allocation, resources: null, ...(owner === undefined ? {} : { owner }) },
    config,
    cache: cacheWithNetworks({}, networks),
  };
}

/**
 * Creates and starts the stored chute's container, then its networks, then its other services. On a
 * failure it removes what the install made (`built`: the images it built) and throws.
 */
async function startInstalled(at: ChuteAtWork, note: Note, built: readonly string[]): Promise<void> {
  let created: string | undefined;
  try {
    created = await at.steps.create(at.chute);
    await at.steps.startContainer(created);
    if (at.options.networks) await at.options.networks.up(at.chute, note, await at.steps.pid());
    await at.steps.startCompanions(at.chute);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    await note(`the install failed: ${reason}; removing what it made`);
    try {
      await undoInstall(at, note, created, built);
    } catch (cleanupError) {
      throw new Error(`${reason}; removing what the install made failed too: ${(cleanupError as Error).message}`);
    }
    throw new Error(`${reason}; chute ${at.chute.name} is not installed`);
  }
}

/** Removes what an install made: the chute's networks, its containers (`created` and its services'), its folder, the images it built. */
async function undoInstall({ options, chute, engine, steps }: ChuteAtWork, note: Note, created: string | undefined, built: readonly string[]): Promise<void> {
  await options.networks?.down(chute, note, 'remove');
  await steps.removeCompanions();
  if (created !== undefined) await steps.remove(created);
  await options.writer.remove(chute.name);
  await note(`removed the stored chute ${chute.name}`);
  for (const image of built) await removeBuiltImage(engine, image, note);
}
