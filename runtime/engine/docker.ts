import { stat } from 'node:fs/promises';
import Docker from 'dockerode';
import { CHUTE_LABEL, type ContainerSample } from '../../functions/core/device.ts';

/** How long the engine may take to list containers before it counts as absent. */
const LIST_DEADLINE_MS = 2000;
/** A one-shot stats call samples the container twice, about a second apart. */
const STATS_DEADLINE_MS = 5000;

/**
 * The chute containers of the Docker Engine behind a UNIX socket: every container (running or not)
 * labelled `io.chutebox.chute`, as `GET /containers/json` lists it, with the one-shot
 * `GET /containers/{id}/stats?stream=false` of each running one (null for the others, and for one
 * whose stats cannot be read).
 *
 * Answers null when the socket does not exist or the engine does not answer within ~2 s.
 * Bundled alone as `dist/engine.mjs` and loaded on first use, so the runtime stays small.
 *
 * @example
 * await listChuteContainers('/var/run/docker.sock') // [{ container: { Id, Names, State, Labels, … }, stats: { cpu_stats, … } }]
 */
export async function listChuteContainers(socketPath: string): Promise<ContainerSample[] | null> {
  try {
    if (!(await stat(socketPath)).isSocket()) return null;
  } catch {
    return null;
  }
  const docker = new Docker({ socketPath });
  let containers: Docker.ContainerInfo[];
  try {
    containers = await docker.listContainers({
      all: true,
      filters: { label: [CHUTE_LABEL] },
      abortSignal: AbortSignal.timeout(LIST_DEADLINE_MS),
    });
  } catch {
    return null;
  }
  return Promise.all(
    containers.map(async (container) => ({
      container: container as unknown as Record<string, unknown>,
      stats: container.State === 'running' ? await statsOf(docker, container.Id) : null,
    })),
  );
}

async function statsOf(docker: Docker, id: string): Promise<Record<string, unknown> | null> {
  try {
    // dockerode passes abortSignal through to the request; its typings only lack the field.
    const options = { stream: false as const, abortSignal: AbortSignal.timeout(STATS_DEADLINE_MS) };
    const stats = await docker.getContainer(id).stats(options);
    return stats as unknown as Record<string, unknown>;
  } catch {
    return null;
  }
}
