import type { ChangeRequestOf, Note } from '../changes/runner.ts';
import type { ChuteAtWork, WorkDone } from './chute-work.ts';
import { removeBuiltImage } from './image-build.ts';
import { builtImages } from './service-images.ts';

/**
 * `delete`: the chute's networks go down (their leases removed), its containers and its folder go,
 * and so do the images chutebox built for it: on a router, flash is scarce.
 */
export async function deleteChute({ options, chute, engine, steps }: ChuteAtWork, _request: ChangeRequestOf<'delete'>, note: Note): Promise<WorkDone> {
  if (options.networks) await options.networks.down(chute, note, 'remove', await steps.pid());
  await steps.removeAll();
  await options.writer.remove(chute.name);
  await note(`removed the stored chute ${chute.name}`);
  for (const image of builtImages(chute.name, chute.record)) await removeBuiltImage(engine, image, note);
  return { deleted: true };
}
