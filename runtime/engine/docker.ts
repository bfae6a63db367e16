import { stat } from 'node:fs/promises';
import Docker from 'dockerode';
import { CHUTE_LABEL, CONTAINER_REF } from '../../functions/core/device.ts';

/** How long the engine may take to list containers before it counts as absent. */
const LIST_DEADLINE_MS = 2000;
/** A one-shot stats call samples the container twice, about a second apart. */
const STATS_DEADLINE_MS = 5000;

/*
 * The two engine calls of the host Device, on the Docker Engine behind a UNIX socket. Bundled alone as
 * `dist/engine.mjs` and loaded on first use, so the runtime stays small.
 */

/**
 * `GET /containers/json?all=1` filtered to the containers labelled `io.chutebox.chute` (running or
 * not), as the engine lists them.
 *
 * Answers null when the socket does not exist or the engine does not answer within ~2 s.
 *
 * @example
 * await listChuteContainers('/var/run/docker.sock') // [{ Id, Names, State, Labels, … }]
 */
export async function listChuteContainers(socketPath: string): Promise<Record<string, unknown>[] | null> {
  if (!(await isSocket(socketPath))) return null;
  try {
    const containers = await new Docker({ socketPath }).listContainers({
      all: true,
      filters: { label: [CHUTE_LABEL] },
      abortSignal: AbortSignal.timeout(LIST_DEADLINE_MS),
    });
    return containers as unknown as Record<string, unknown>[];
  } catch {
    return null;
  }
}

/**
 * The raw body of `GET /containers/<id>/stats?stream=false`. `id` must be a container id or name
 * (`CONTAINER_REF`), so that it cannot reach another engine path.
 *
 * Answers null for any other `id`, when the socket does not exist, when the engine answers with an
 * error (e.g. no such container) and when it does not answer within ~5 s.
 *
 * @example
 * await containerStats('/var/run/docker.sock', '5f1c…ff') // { read, cpu_stats, memory_stats, … }
 */
export async function containerStats(socketPath: string, id: string): Promise<Record<string, unknown> | null> {
  if (!CONTAINER_REF.test(id) || !(await isSocket(socketPath))) return null;
  try {
    // dockerode passes abortSignal through to the request; its typings only lack the field.
    const options = { stream: false as const, abortSignal: AbortSignal.timeout(STATS_DEADLINE_MS) };
    const stats = await new Docker({ socketPath }).getContainer(id).stats(options);
    return stats as unknown as Record<string, unknown>;
  } catch {
    return null;
  }
}

async function isSocket(file: string): Promise<boolean> {
  return stat(file).then((s) => s.isSocket(), () => false);
}
