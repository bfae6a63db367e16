import * as z from 'zod/mini';
import { deferredAudio, type AudioKind, type Device, type DeviceAudio, type PactlListing } from '../../functions/core/device/index.ts';
import { PACTL_FILES } from '../../runtime/scenario/format.ts';

/** What pactl printed on the recorded device, by listing; a scenario without audio has none. */
export type RecordedPactl = Record<PactlListing, string>;

/** A listing `pactl -f json` prints: JSON text. */
const pactlJson = z.string().check(
  z.refine((text) => {
    try {
      JSON.parse(text);
      return true;
    } catch {
      return false;
    }
  }, 'must be JSON, as pactl -f json prints it'),
);

/** The pactl outputs an emulator state carries once requests edited them (emulator/emulator-state.ts). */
export const AudioStateSchema = z.strictObject({ info: pactlJson, sinks: pactlJson, sources: pactlJson, modules: pactlJson, 'modules-short': z.string() });

/** A JSON object of pactl's output, as the emulator edits it. */
type PactlEntry = Record<string, unknown>;

/**
 * The audio server of a scenario: it answers the recorded pactl outputs and edits them as the real
 * server would change (the default sink or source, a volume, a loaded module), so a later listing
 * shows the change. Without recorded outputs every listing is null, as on a device without PulseAudio.
 * `edited()` answers the outputs once a request changed them (undefined before), for the emulator's
 * snapshots.
 *
 * @example
 * const audio = emulatedAudio(recorded);
 * await audio.setVolume('sink', 'null', [32768]); // then pactl('sinks') shows 32768 on each channel
 */
export function emulatedAudio(recorded: RecordedPactl | null): DeviceAudio['audio'] & { edited(): RecordedPactl | undefined } {
  let outputs = recorded === null ? null : { ...recorded };
  let edited = false;
  const edit = (listing: PactlListing, change: (value: PactlEntry[] & PactlEntry) => void) => {
    if (outputs === null) throw new Error('the scenario has no audio server');
    const value = JSON.parse(outputs[listing]);
    change(value);
    outputs = { ...outputs, [listing]: JSON.stringify(value) };
    edited = true;
  };
  return {
    pactl: async (listing) => outputs?.[listing] ?? null,
    setDefault: async (kind, name) =>
      edit('info', (info) => {
        info[`default_${kind}_name`] = name;
      }),
    setVolume: async (kind, name, volumes) =>
      edit(listingOf(kind), (entries) => {
        const entry = entries.find((one) => one.name === name);
        const channels = Object.values((entry?.volume ?? {}) as Record<string, { value: number; value_percent: string }>);
        for (const [at, channel] of channels.entries()) {
          channel.value = volumes[volumes.length === 1 ? 0 : at] ?? channel.value;
          channel.value_percent = `${Math.round((channel.value * 100) / 65536)}%`;
        }
      }),
    loadModule: async (name) => {
      const short = outputs?.['modules-short'] ?? '';
      const index =
        Math.max(
          -1,
          ...short
            .split('\n')
            .map((line) => Number.parseInt(line, 10))
            .filter(Number.isInteger),
        ) + 1;
      edit('modules', (modules) => {
        modules.push({ name, argument: '', usage_counter: '0', properties: {} });
      });
      outputs = outputs && { ...outputs, 'modules-short': `${short}${index}\t${name}\t\t\n` };
      return index;
    },
    edited: () => (edited && outputs !== null ? outputs : undefined),
  };
}

/** The listing that holds a sink or a source. */
function listingOf(kind: AudioKind): PactlListing {
  return kind === 'sink' ? 'sinks' : 'sources';
}

/** The pactl outputs a scenario's files record; null for a scenario that records no audio server (no `pactl/info.json`). */
export async function recordedPactl(files: Pick<Device, 'readFile'>): Promise<RecordedPactl | null> {
  const listings = Object.keys(PACTL_FILES) as PactlListing[];
  const texts = await Promise.all(listings.map((listing) => files.readFile(PACTL_FILES[listing])));
  if (texts[0] === null) return null;
  return Object.fromEntries(listings.map((listing, at) => [listing, texts[at] ?? ''])) as RecordedPactl;
}

/**
 * The audio server of a scenario: `emulatedAudio` over the pactl outputs its files record, read on the
 * first audio call, or over the outputs a state's requests left (`edited`); none (every listing null,
 * as on a device without PulseAudio) where it records none. `edited()` answers what a snapshot keeps.
 *
 * @example
 * await scenarioAudio(files).audio.pactl('sinks') // the recorded `pactl -f json list sinks`
 */
export function scenarioAudio(files: Pick<Device, 'readFile'>, edited?: RecordedPactl): { audio: DeviceAudio['audio']; edited(): RecordedPactl | undefined } {
  let made: ReturnType<typeof emulatedAudio> | undefined;
  if (edited !== undefined) {
    made = emulatedAudio(edited);
    // Edited before the state was taken: a later snapshot keeps the outputs even if no request edits them again.
    return { audio: made, edited: () => made!.edited() ?? edited };
  }
  const audio = deferredAudio(async () => (made ??= emulatedAudio(await recordedPactl(files))));
  return { audio, edited: () => made?.edited() };
}
