import type { AudioKind, DeviceAudio, PactlListing } from '../../functions/core/device/index.ts';
import { HttpProblem } from '../../functions/core/problem.ts';
import { runTool, type Tool } from '../tools/run.ts';

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
 * listing is null when pactl is missing or no server answers it.
 *
 * @example
 * await hostAudio().audio.pactl('info') // '{"server_name":"pulseaudio",…}'
 */
export function hostAudio(): DeviceAudio {
  return {
    audio: {
      async pactl(listing) {
        const result = await runTool(PACTL, LISTINGS[listing], LIMITS).catch(() => null);
        return result?.code === 0 ? result.stdout : null;
      },
      setDefault: async (kind, name) => void (await pactl([`set-default-${kind}`, name], 502)),
      setVolume: async (kind: AudioKind, name, volumes) => void (await pactl([`set-${kind}-volume`, name, ...volumes.map(String)], 502)),
      loadModule: async (name) => Number.parseInt(await pactl(['load-module', name], 422), 10),
    },
  };
}

/** Runs pactl and answers what it printed; a refusal is a problem of `status`, with pactl's reason. */
async function pactl(args: string[], status: number): Promise<string> {
  const { code, stdout, stderr } = await runTool(PACTL, args, LIMITS);
  if (code === 0) return stdout;
  const reason = stderr.trim() || `exit ${code}`;
  throw new HttpProblem(status, `PulseAudio refused pactl ${args[0]}: ${reason}`, status === 422 ? { errors: [{ path: 'body.name', message: reason }] } : {});
}
