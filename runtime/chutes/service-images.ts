import type { ChuteServices } from '../../functions/core/device/index.ts';
import { chuteImageTag, isBuiltImage } from '../../functions/chutes/image-tag.ts';
import { lightDockerfile, type LightRuntimeName } from '../../functions/chutes/light-dockerfile.ts';
import { storedServices, taggedServices } from '../../functions/chutes/services.ts';
import type { Note } from '../changes/runner.ts';
import type { ChuteEngine } from '../engine/docker.ts';
import { serviceContext } from './build-context.ts';
import { buildImage, removeBuiltImage } from './image-build.ts';

/** Where a chute's services are built: the engine, the chute, its source, its version, the change, the RUN steps' network. */
export interface ServiceBuild {
  engine: ChuteEngine;
  chute: string;
  source: Uint8Array;
  version: string | null;
  change: number;
  networkMode: string;
  /** The image the chute's main service runs now (an update's tag avoids it). */
  current?: string;
}

/**
 * Builds the image of each service that is built from the chute's source (a normal one from its
 * folder's Dockerfile, a light one with the Dockerfile chutebox writes for its runtime) and answers
 * the services with their images: the main one tagged as a chute's image is (`chuteImageTag`), each
 * other one that tag and `-<service>`. On a failure the images it built go, and it throws.
 */
export async function buildServices(build: ServiceBuild, services: ChuteServices, note: Note): Promise<ChuteServices> {
  const { engine, chute, source, version, change, networkMode, current } = build;
  const tagged = taggedServices(services, chuteImageTag(chute, version, change, current));
  const built: string[] = [];
  try {
    for (const service of Object.values(tagged.services)) {
      if (service.type === 'image' || service.image === null) continue;
      const dockerfile = service.type === 'light' ? lightDockerfile(service.use as LightRuntimeName, service.command ?? []) : undefined;
      await buildImage(engine, chute, await serviceContext(source, service.source ?? '', dockerfile), service.image, networkMode, note);
      built.push(service.image);
    }
  } catch (error) {
    for (const tag of built) await removeBuiltImage(engine, tag, note);
    throw error;
  }
  return tagged;
}

/** The images chutebox built for a chute's record (its image, and its services'), each once. */
export function builtImages(chute: string, record: Record<string, unknown>): string[] {
  const images = [record.image, ...Object.values(storedServices(record)?.services ?? {}).map((service) => service.image)];
  return [...new Set(images.filter((image): image is string => typeof image === 'string' && isBuiltImage(chute, image)))];
}

/** The record fields of a chute's services: the main service's image as the chute's, the services, which is the main one. */
export function serviceRecord(services: ChuteServices): { image: string; services: ChuteServices['services']; main_service: string } {
  const image = services.services[services.main]?.image;
  if (typeof image !== 'string') throw new Error(`the main service ${services.main} has no image`);
  return { image, services: services.services, main_service: services.main };
}
