import { existsSync } from 'node:fs';
import path from 'node:path';
import type { AudioKind, DeviceAudio, PactlListing } from '../../functions/core/device/index.ts';
import { HttpProblem } from '../../functions/core/problem.ts';
import { runTool, type Tool } from '../tools/run.ts';
import { sharedRuns } from '../tools/shared-run.ts';

/** `pactl` on PATH; it finds the server as any PulseAudio client does (`PULSE_SERVER`, the user's runtime folder). */
const PACTL: Tool = { name: 'pactl', path: 'pactl', setting: 'PATH' };

/** What pactl is asked for each listing: JSON where 16.1 has it, and the short module list for the indexes. */
const LISTINGS: Record<PactlListing, readonly string[]> = {
  info: ['-f', 'json', 'info'],
  sinks: ['-f', 'json', 'list', 'sinks'],
  sources: ['-f', 'json', 'list', 'sources'],
  modules: ['-f', 'json', 'list', 'modules'],
  'modules-short': ['list', 'short', 'modules'],
};

/** How long pactl may take, and how much it may print. */
const LIMITS = { timeoutMs: 5000, maxOutputBytes: 1024 * 1024 };

/**
 * The host's audio server through `pactl` (docs/decisions/0059): argument arrays, never a shell. A
 * listing is null when pactl is missing or no server answers it, and at once, without a pactl run,
 * when no server can listen (`serverMayListen`): a device without PulseAudio pays nothing. Concurrent
 * requests for one listing share one pactl run (`sharedRuns`); a listing asked for after an action
 * ends never shares a run begun before it, as each action starts a new generation of runs.
 *
 * @example
 * await hostAudio().audio.pactl('info') // '{"server_name":"pulseaudio",…}'
 */
export function hostAudio(): DeviceAudio {
  const listings = sharedRuns<string | null>();
  let generation = 0;
  /** Runs an action; the listings asked for once it ended run pactl anew. */
  const acting = async <T>(action: Promise<T>): Promise<T> => {
    try {
      return await action;
    } finally {
      generation += 1;
    }
  };
  return {
    audio: {
      pactl: async (listing) => {
        if (!serverMayListen(process.env)) return null;
        return listings.run(`${generation} ${listing}`, async () => {
          const result = await runTool(PACTL, LISTINGS[listing], LIMITS).catch(() => null);
          return result?.code === 0 ? result.stdout : null;
        });
      },
      setDefault: async (kind, name) => void (await acting(pactl([`set-default-${kind}`, name], 502))),
      setVolume: async (kind: AudioKind, name, volumes) => void (await acting(pactl([`set-${kind}-volume`, name, ...volumes.map(String)], 502))),
      loadModule: async (name) => Number.parseInt(await acting(pactl(['load-module', name], 422)), 10),
    },
  };
}

/**
 * Whether a PulseAudio server may listen, as libpulse finds one: `PULSE_SERVER` names it, or a socket
 * is in the user's runtime folder (`PULSE_RUNTIME_PATH`, `XDG_RUNTIME_DIR/pulse`) or the system-wide
 * instance's (`/run/pulse`). A server elsewhere (a TCP one of client.conf) is reached through `PULSE_SERVER`.
 */
function serverMayListen(env: NodeJS.ProcessEnv): boolean {
  if (env.PULSE_SERVER) return true;
  // Synchronous: a look-up of a name in a memory file system (/run), cheaper than a hop through libuv's thread pool on every GET features.
  const folders = [env.PULSE_RUNTIME_PATH, env.XDG_RUNTIME_DIR && path.join(env.XDG_RUNTIME_DIR, 'pulse'), SYSTEM_RUNTIME];
  return folders.some((folder) => folder && existsSync(path.join(folder, 'native')));
}

/** The runtime folder of PulseAudio's system-wide instance (`pulseaudio --system`), as Debian builds it. */
const SYSTEM_RUNTIME = '/run/pulse';

/** Runs pactl and answers what it printed; a refusal is a problem of `status`, with pactl's reason. */
async function pactl(args: string[], status: number): Promise<string> {
  const { code, stdout, stderr } = await runTool(PACTL, args, LIMITS);
  if (code === 0) return stdout;
  const reason = stderr.trim() || `exit ${code}`;
  throw new HttpProblem(status, `PulseAudio refused pactl ${args[0]}: ${reason}`, status === 422 ? { errors: [{ path: 'body.name', message: reason }] } : {});
}
