/** What `pactl` lists: `info`, `list sinks`, `list sources`, `list modules` in JSON, and `list short modules`. */
export type PactlListing = 'info' | 'sinks' | 'sources' | 'modules' | 'modules-short';

/** A sink (an output) or a source (an input) of the audio server. */
export type AudioKind = 'sink' | 'source';

/**
 * The device's audio server (PulseAudio), raw as `pactl` prints it, and what acts on it. The host runs
 * `pactl` (docs/decisions/0059), the emulator answers the scenario's recorded outputs and keeps its
 * changes. Each action takes names the handler has checked against the listing.
 *
 * @example
 * await device.audio.pactl('sinks') // '[{"index":0,"name":"null",…}]', or null without an audio server
 */
export interface DeviceAudio {
  audio: {
    /** What pactl prints for the listing; null when the device has no audio server that answers. */
    pactl(listing: PactlListing): Promise<string | null>;
    /** Makes a sink or a source the default. Throws an `HttpProblem` (502) when the server refuses. */
    setDefault(kind: AudioKind, name: string): Promise<void>;
    /** Sets a sink's or a source's volume: one raw value (65536 for 100%) per channel, or one for all. */
    setVolume(kind: AudioKind, name: string, volumes: readonly number[]): Promise<void>;
    /** Loads a module by name, without arguments, and answers its index. Throws an `HttpProblem` (422) when the server refuses it. */
    loadModule(name: string): Promise<number>;
  };
}

/**
 * An audio facet made on its first call by `load` (a bundle imported, recorded outputs read), and
 * kept: each action waits for it, then calls it.
 *
 * @example
 * const audio = deferredAudio(async () => (await import('./host-audio.ts')).hostAudio().audio);
 */
export function deferredAudio(load: () => Promise<DeviceAudio['audio']>): DeviceAudio['audio'] {
  let made: Promise<DeviceAudio['audio']> | undefined;
  const audio = () => (made ??= load());
  return {
    pactl: async (listing) => (await audio()).pactl(listing),
    setDefault: async (kind, name) => (await audio()).setDefault(kind, name),
    setVolume: async (kind, name, volumes) => (await audio()).setVolume(kind, name, volumes),
    loadModule: async (name) => (await audio()).loadModule(name),
  };
}
