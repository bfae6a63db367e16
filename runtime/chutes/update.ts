import { resolvePlaceholders } from '../../functions/config/secret-placeholders.ts';
import { servicesOrRoot } from '../../functions/chutes/services.ts';
import type { AfterSucceeded, ChangeRequestOf, Note } from '../changes/runner.ts';
import type { ChuteAtWork, WorkDone } from './chute-work.ts';
import { removeBuiltImage } from './image-build.ts';
import { replaceChute } from './replace-chute.ts';
import { buildServices, builtImages, serviceRecord } from './service-images.ts';
import { withCache } from './reserved-networks.ts';

/**
 * `update-config`: the chute with the new configuration, its `[redacted]` placeholders resolved against
 * the one stored now, in a new container (`replaceChute`).
 */
export async function updateConfig(at: ChuteAtWork, request: ChangeRequestOf<'update-config'>, note: Note, id: number): Promise<WorkDone> {
  const { chute } = at;
  // Placeholders keep the secrets stored now, which a change queued before this one may have set.
  const config = resolvePlaceholders(request.config, chute.config, `the configuration of chute ${chute.name}`);
  return withCache(at.options, chute, config, async (cache) => ({ after: await replaceChute(at, { ...chute, config, cache }, note, id) }));
}

/**
 * `update`: the images of the chute's services built from its new source, then the chute with the new
 * record and configuration in new containers from them (`replaceChute`). The images it replaces go when
 * chutebox built them; the new ones go when the update fails.
 */
export async function updateFromSource(at: ChuteAtWork, request: ChangeRequestOf<'update'>, note: Note, id: number): Promise<WorkDone> {
  const { chute, engine, options } = at;
  const name = chute.name;
  const current = typeof chute.record.image === 'string' ? chute.record.image : undefined;
  return withCache(options, chute, request.config, async (cache) => {
    const build = { engine, chute: name, source: request.source, version: request.version, change: id, networkMode: options.networkMode, current };
    const services = serviceRecord(await buildServices(build, servicesOrRoot(request.services), note));
    const owner = request.owner === undefined ? {} : { owner: request.owner };
    const record = { ...chute.record, ...services, ...owner, version: request.version, environment: request.environment };
    const built = builtImages(name, record);
    let after: AfterSucceeded;
    try {
      after = await replaceChute(at, { ...chute, record, config: request.config, cache }, note, id, services.image);
    } catch (error) {
      for (const image of built) await removeBuiltImage(engine, image, note);
      throw error;
    }
    for (const image of builtImages(name, chute.record)) if (!built.includes(image)) await removeBuiltImage(engine, image, note);
    return { after };
  });
}
