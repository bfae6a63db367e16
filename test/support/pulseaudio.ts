import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { RecordedPactl } from '../../emulator/scenario/audio.ts';
import { findOnPath } from './dockerd.ts';
import { rawFixture } from './info-devices.ts';

/*
 * A real PulseAudio with a null sink (Debian's `pulseaudio` and `pulseaudio-utils`), for the tests of
 * the audio routes; started as ../shared/REAL-COMPONENTS.md says and stopped by pid.
 */

/** pulseaudio and pactl on PATH, or null. */
const PULSEAUDIO = findOnPath('pulseaudio');
const PACTL = findOnPath('pactl');

/**
 * Whether a test file that needs PulseAudio is skipped: without it, unless CHUTEBOX_REQUIRE_PULSEAUDIO
 * is set (as in CI), when missing it is a failure. Prints why when it skips.
 */
export function skipWithoutPulseaudio(file: string): boolean {
  const unavailable = pulseaudioUnavailableReason();
  const skipped = unavailable !== null && !process.env.CHUTEBOX_REQUIRE_PULSEAUDIO;
  if (skipped) console.warn(`${file}: skipped: ${unavailable}; set CHUTEBOX_REQUIRE_PULSEAUDIO=1 to make this a failure`);
  return skipped;
}

/** Why PulseAudio cannot be started here, or null when it can. */
export function pulseaudioUnavailableReason(): string | null {
  if (PULSEAUDIO !== null && PACTL !== null) return null;
  return 'pulseaudio or pactl is not on PATH (apt-get install -y --no-install-recommends pulseaudio pulseaudio-utils)';
}

/** A running PulseAudio: its server address for `PULSE_SERVER`, and how to stop it. */
export interface RunningPulseaudio {
  server: string;
  stop(): Promise<void>;
}

/** Starts PulseAudio with a null sink in a temporary folder and waits until pactl reaches it. */
export async function startPulseaudio(): Promise<RunningPulseaudio> {
  const dir = await mkdtemp(path.join(tmpdir(), 'chutebox-pulse-'));
  const server = `unix:${dir}/pulse.sock`;
  const child: ChildProcess = spawn(
    PULSEAUDIO ?? 'pulseaudio',
    [
      '-n',
      '--daemonize=no',
      '--exit-idle-time=-1',
      '--disallow-exit',
      '-L',
      `module-native-protocol-unix socket=${dir}/pulse.sock auth-anonymous=1`,
      '-L',
      'module-null-sink',
    ],
    { env: { ...process.env, XDG_RUNTIME_DIR: dir }, stdio: 'ignore' },
  );
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    await rm(dir, { recursive: true, force: true });
  };
  for (let attempt = 0; attempt < 100; attempt++) {
    const ready = await promisify(execFile)(PACTL ?? 'pactl', ['-s', server, 'info'], { timeout: 2000 }).then(
      () => true,
      () => false,
    );
    if (ready) return { server, stop };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await stop();
  throw new Error('PulseAudio did not answer pactl within 10 s');
}

/** What the real pactl printed for a PulseAudio with a null sink (fixtures/raw/pactl/), as a memory device's `audio`. */
export function nullSinkPactl(): RecordedPactl {
  return {
    info: rawFixture('pactl/info.json'),
    sinks: rawFixture('pactl/sinks.json'),
    sources: rawFixture('pactl/sources.json'),
    modules: rawFixture('pactl/modules.json'),
    'modules-short': rawFixture('pactl/modules-short.txt'),
  };
}
