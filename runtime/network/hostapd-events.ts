import { spawn } from 'node:child_process';
import { watch } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { HostapdEvents, NetworkHost, NetworkTarget } from '../../functions/core/device/index.ts';
import { HttpProblem } from '../../functions/core/problem.ts';
import { eventDirPrefix } from './event-dirs.ts';
import { connectProblem, hostapdAttachLate, type NetworkTools } from './tools.ts';

/**
 * Characters kept of one event line; the rest of a longer line is dropped. hostapd_cli reads an
 * event into a buffer of this size, so a real event is never cut.
 */
export const MAX_EVENT_CHARS = 4096;

/** Characters kept of what hostapd_cli prints besides events, to say why it ended. */
const MAX_NOTE_CHARS = 2048;

/**
 * hostapd's events on a network's control socket, for `NetworkHost.hostapdEvents` of `hostNetwork`.
 * First `PING`s hostapd through `host` (so a missing or silent socket is the same 503 or 504 as a
 * command: `hostapd_cli -a` would wait for it instead), then runs
 * `hostapd_cli -p <dir> -i <name> -s <private dir> -a <echo>`, which attaches to hostapd and runs
 * `<echo> <name> <event words…>` for each event (without its `<level>`); each line `<name> <event>`
 * the program prints goes to `onEvent` as `<event>`. Answers once hostapd_cli's own socket exists in
 * the private folder (it attaches right after); rejects with a 503 naming the socket when
 * hostapd_cli ends before that, and with a 504 when that takes over the tool timeout. Anything else
 * hostapd_cli prints (such as `hostapd did not reply to PING command - exiting`) is the reason given
 * to `onEnd` when it ends by itself.
 *
 * The process is not detached: it belongs to the runtime's process group, and `stop()` kills it by
 * its pid, then removes the private folder (a killed hostapd_cli leaves its socket there). The folder
 * is named for the runtime's pid (`eventDirPrefix`): one a killed runtime left is removed at the next
 * start (`removeStaleEventDirs`).
 *
 * @example
 * const events = await attachHostapdEvents(host, target, tools, (text) => console.log(text), (reason) => console.error(reason));
 * await events.stop();
 */
export async function attachHostapdEvents(
  host: NetworkHost,
  target: NetworkTarget,
  tools: NetworkTools,
  onEvent: (text: string) => void,
  onEnd: (reason: string) => void,
): Promise<HostapdEvents> {
  await host.hostapd(['PING']);
  // PING has checked that it is recorded.
  const socket = target.hostapdControl!;
  const name = path.basename(socket);
  const clientDir = await mkdtemp(eventDirPrefix());
  const args = ['-p', path.dirname(socket), '-i', name, '-s', clientDir, '-a', tools.eventProgram];
  // Watching before it starts: its socket may come before anything else here runs.
  const watcher = watch(clientDir);
  const child = spawn(tools.hostapdCli, args, { stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true });
  let notes = '';
  const note = (text: string) => {
    notes = (notes + text).slice(-MAX_NOTE_CHARS);
  };

  /** Set once it attached; `stopped` once `stop()` was called. */
  let attached = false;
  let stopped = false;
  /** Settles once the process has ended (or never started) and its folder is gone. */
  const ended = new Promise<void>((resolve) => {
    const cleanUp = () => {
      watcher.close();
      void rm(clientDir, { recursive: true, force: true }).then(resolve, resolve);
    };
    child.once('close', cleanUp);
    child.once('error', () => child.pid === undefined && cleanUp());
  });

  let line = '';
  let dropping = false;
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    const parts = chunk.split('\n');
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i]!;
      if (!dropping) line += part;
      if (line.length > MAX_EVENT_CHARS) {
        line = line.slice(0, MAX_EVENT_CHARS);
        dropping = true;
      }
      if (i === parts.length - 1) break;
      if (line.startsWith(`${name} `)) {
        if (!stopped) onEvent(line.slice(name.length + 1));
      } else note(`${line}\n`);
      line = '';
      dropping = false;
    }
  });
  child.stderr.setEncoding('utf8').on('data', note);

  const subscription: HostapdEvents = {
    stop() {
      stopped = true;
      if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
        try {
          process.kill(child.pid, 'SIGKILL');
        } catch {
          // it has just ended
        }
      }
      return ended;
    },
  };

  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(hostapdAttachLate(socket, tools.timeoutMs));
      void subscription.stop();
    }, tools.timeoutMs);
    const settle = () => clearTimeout(timer);

    watcher.on('change', () => {
      void readdir(clientDir).then(
        (files) => {
          if (attached || files.length === 0 || child.exitCode !== null || child.signalCode !== null) return;
          attached = true;
          settle();
          resolve(subscription);
        },
        () => undefined,
      );
    });
    watcher.on('error', () => undefined);
    child.once('error', (error) => {
      settle();
      reject(new HttpProblem(503, `hostapd_cli (${tools.hostapdCli}) cannot be run for hostapd's events: ${error.message}`));
    });
    child.once('close', (code, signal) => {
      settle();
      const output = notes.trim() || `exit ${code ?? signal}`;
      if (!attached) return reject(connectProblem(output, socket) ?? new HttpProblem(502, `hostapd_cli could not attach to ${socket}: ${output}`));
      if (!stopped) onEnd(`hostapd_cli stopped: ${output}`);
    });
  });
}
