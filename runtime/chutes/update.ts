import { resolvePlaceholders } from '../../functions/config/secret-placeholders.ts';
import { chuteImageTag, isBuiltImage } from '../../functions/chutes/image-tag.ts';
import type { AfterSucceeded, ChangeRequestOf, Note } from '../changes/runner.ts';
import type { ChuteAtWork, WorkDone } from './chute-work.ts';
import { buildImage, removeBuiltImage } from './image-build.ts';
import { replaceChute } from './replace-chute.ts';
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
 * `update`: the image built from the chute's new source, then the chute with the new record and
 * configuration in a new container from it (`replaceChute`). The image it replaces goes when chutebox
 * built it; the new one goes when the update fails.
 */
export async function updateFromSource(at: ChuteAtWork, request: ChangeRequestOf<'update'>, note: Note, id: number): Promise<WorkDone> {
  const { chute, engine, options } = at;
  const name = chute.name;
  const current = typeof chute.record.image === 'string' ? chute.record.image : undefined;
  return withCache(options, chute, request.config, async (cache) => {
    const image = await buildImage(engine, name, request.source, chuteImageTag(name, request.version, id, current), options.networkMode, note);
    const record = { ...chute.record, image, version: request.version, environment: request.environment };
    let after: AfterSucceeded;
    try {
      after = await replaceChute(at, { ...chute, record, config: request.config, cache }, note, id, image);
    } catch (error) {
      await removeBuiltImage(engine, image, note);
      throw error;
    }
    if (current !== undefined && current !== image && isBuiltImage(name, current)) await removeBuiltImage(engine, current, note);
    return { after };
  });
}
