import { readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** The start of the name of each hostapd_cli's private folder (`attachHostapdEvents`), then the runtime's pid and `-`. */
const EVENT_DIR = 'chutebox-hostapd-events-';
const OWNED_EVENT_DIR = new RegExp(`^${EVENT_DIR}(\\d+)-`);

/**
 * The prefix of a private folder of a hostapd_cli that follows hostapd's events, for `mkdtemp`: in
 * the temp folder, named for the runtime's pid, so that one left by a runtime that was killed can
 * be told from one in use (`removeStaleEventDirs`).
 *
 * @example
 * eventDirPrefix() // '/tmp/chutebox-hostapd-events-4242-'
 */
export function eventDirPrefix(): string {
  return path.join(os.tmpdir(), `${EVENT_DIR}${process.pid}-`);
}

/**
 * Removes the private folders of hostapd_cli (`eventDirPrefix`) in `dir` whose runtime no longer
 * runs: a runtime killed with SIGKILL cannot remove its own. Answers the folders removed.
 *
 * @example
 * await removeStaleEventDirs() // ['/tmp/chutebox-hostapd-events-4100-x1Yz2A']
 */
export async function removeStaleEventDirs(dir = os.tmpdir()): Promise<string[]> {
  const removed: string[] = [];
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const pid = OWNED_EVENT_DIR.exec(name)?.[1];
    if (pid === undefined || runs(Number(pid))) continue;
    await rm(path.join(dir, name), { recursive: true, force: true });
    removed.push(path.join(dir, name));
  }
  return removed;
}

/** Whether a process with that pid runs (a zombie counts). */
function runs(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
