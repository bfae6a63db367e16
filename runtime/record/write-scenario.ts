import { lstat, mkdir, realpath, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  check,
  chuteLogFile,
  CHUTES_DIR,
  ContainerList,
  CONTAINERS_FILE,
  DEVICE_FILE,
  formatChuteYaml,
  formatDeviceYaml,
  formatLogFile,
  NETWORK_FILES,
  networkDir,
  ScenarioError,
  statsFile,
  YAML_CHUTE_FORMAT,
  type DeviceYaml,
} from '../scenario/format.ts';
import { mainServiceName } from '../../functions/chutes/services.ts';
import { CHUTE_NAME, CONTAINER_REF, type FsStats } from '../../functions/core/device/index.ts';
import { KNOWN_PROGRAMS, type KnownProgram } from '../../functions/info/features.ts';
import type { Recording } from './recording-device.ts';

/**
 * Writes a recording as a scenario into `root` (an existing, empty folder), so that a scenario Device
 * over `root` answers every recorded question exactly as the recorded device did:
 * - each file read, verbatim, at its mirrored path (`/proc/cpuinfo` → `root/proc/cpuinfo`);
 * - each `realPath` answer that differs from the path as a relative symbolic link, made shortest path
 *   first so that a link inside a linked folder lands where the first link points (as in sysfs);
 *   link targets and paths that resolved to themselves exist as folders unless written as files;
 * - each directory listing's entries exist (as empty folders when nothing else made them);
 * - `uname`, the readable `statfs` answers and the `programs` answer (when asked) in `device.yaml`,
 *   with `description`;
 * - the container list in `engine/containers.json` and each stats answer in `engine/stats/<id>.json`
 *   (nothing without an engine; a stats answer of null is no file);
 * - each chute read as `chutes/<name>/chute.yaml` (its record), `service.yaml` (its configuration)
 *   and `cache.yaml` (its cache, when not empty), its log in `chutes/<name>/logs` (when one was
 *   read), and the raw answers about each of its networks in
 *   `chutes/<name>/networks/<network>/` under the names of `NETWORK_FILES` (a lease file that does
 *   not exist, and a tool that failed, is no file).
 *
 * Files are written plainly, not one by one with `writeFileAtomic`: the whole folder is what must be
 * all-or-nothing, so `chutebox record` writes it as a temporary folder and renames that into place.
 *
 * @throws ScenarioError when the recording cannot be written as a scenario (no uname answer, a
 *   program `device.yaml` cannot list, a container id, chute or network name that cannot name a file).
 */
export async function writeScenario(recording: Recording, root: string, description: string): Promise<void> {
  if (recording.uname === undefined) throw new ScenarioError('the recording has no uname answer, which device.yaml needs');
  const base = await realpath(root);
  const at = (devicePath: string) => locate(base, devicePath);

  type Step = { path: string; kind: 'link'; target: string } | { path: string; kind: 'file'; text: string };
  const steps: Step[] = [
    ...[...recording.links].flatMap(([from, target]) => (target === null || target === from ? [] : [{ path: from, kind: 'link' as const, target }])),
    ...[...recording.files].map(([file, text]) => ({ path: file, kind: 'file' as const, text })),
  ];
  // Shorter paths first; at one path the link first, so the file is written where the link points.
  steps.sort((a, b) => depth(a.path) - depth(b.path) || (a.kind === b.kind ? 0 : a.kind === 'link' ? -1 : 1));

  for (const step of steps) {
    at(step.path);
    const parent = await physical(base, parentOf(step.path));
    const location = path.join(parent, path.posix.basename(step.path));
    await mkdir(parent, { recursive: true });
    if (step.kind === 'file') {
      await writeFile(location, step.text);
      continue;
    }
    const target = at(step.target);
    if (location === target) continue;
    // The target is a real path on the device: it exists, as a file when a file is read there.
    const isFile = recording.files.has(step.path) || recording.files.has(step.target);
    await mkdir(isFile ? path.dirname(target) : target, { recursive: true });
    if (isFile && !(await exists(target))) await writeFile(target, '');
    if (!(await exists(location, true))) await symlink(path.relative(parent, target), location);
  }

  // Paths that resolved to themselves, and the entries of listed directories, must exist too.
  const present = [
    ...[...recording.links.values()].filter((target) => target !== null),
    ...[...recording.dirs].flatMap(([dir, names]) => names.map((name) => joinDevicePath(dir, name))),
  ];
  for (const devicePath of present.sort((a, b) => depth(a) - depth(b))) {
    const location = await physical(base, devicePath);
    if (!(await exists(location))) await mkdir(location, { recursive: true });
  }

  const deviceYaml: DeviceYaml = { description, uname: recording.uname };
  const statfs = [...recording.statfs].filter((entry): entry is [string, FsStats] => entry[1] !== null).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (statfs.length > 0) deviceYaml.statfs = Object.fromEntries(statfs);
  if (recording.programs !== undefined) deviceYaml.programs = recording.programs.map(knownProgram);
  await writeFile(
    path.join(base, DEVICE_FILE),
    formatDeviceYaml(
      deviceYaml,
      'Recorded by `chutebox record`: uname(2) and statfs(2) of the device, and the programs it has on PATH, which have no raw file.',
    ),
  );

  if (recording.containers) {
    check(ContainerList, recording.containers, 'the container engine listed a container whose Id cannot name a stats file');
    const stats = [...recording.stats].filter((entry): entry is [string, Record<string, unknown>] => entry[1] !== null);
    const badId = stats.find(([id]) => !CONTAINER_REF.test(id));
    if (badId) throw new ScenarioError(`the container id ${JSON.stringify(badId[0])} cannot name a stats file`);
    await mkdir(path.join(base, path.dirname(CONTAINERS_FILE)), { recursive: true });
    await writeFile(path.join(base, CONTAINERS_FILE), `${JSON.stringify(recording.containers, null, 2)}\n`);
    for (const [id, body] of stats) {
      const file = path.join(base, statsFile(id));
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, `${JSON.stringify(body, null, 2)}\n`);
    }
  }

  await writeChutes(recording, base);
}

/** The chutes of a recording, their logs and the raw answers about their networks, into `chutes/`. */
async function writeChutes(recording: Recording, base: string): Promise<void> {
  const named = (kind: string, name: string) => {
    if (!CHUTE_NAME.test(name)) throw new ScenarioError(`the ${kind} name ${JSON.stringify(name)} cannot name a folder`);
    return name;
  };
  const yaml = (name: string) => `${name}${YAML_CHUTE_FORMAT.extension}`;
  for (const [name, chute] of recording.chutes) {
    if (chute === null) continue;
    const folder = path.join(base, CHUTES_DIR, named('chute', name));
    await mkdir(folder, { recursive: true });
    await writeFile(
      path.join(folder, yaml('chute')),
      formatChuteYaml(chute.record, 'The installed chute, as the runtime stores it. Recorded by `chutebox record`.'),
    );
    await writeFile(
      path.join(folder, yaml('service')),
      formatChuteYaml(chute.config, 'The chute configuration, as the runtime stores it. Recorded by `chutebox record`.'),
    );
    if (Object.keys(chute.cache).length > 0) {
      await writeFile(path.join(folder, yaml('cache')), formatChuteYaml(chute.cache, "The runtime's cache of the chute. Recorded by `chutebox record`."));
    }
  }
  for (const [chute, entries] of recording.logs) {
    const stored = recording.chutes.get(chute);
    if (stored != null) await writeFile(path.join(base, chuteLogFile(named('chute', chute))), formatLogFile(entries, mainServiceName(stored.record)));
  }
  for (const [chute, networks] of recording.networks) {
    for (const [network, answers] of networks) {
      const folder = path.join(base, networkDir(named('chute', chute), named('network', network)));
      await mkdir(folder, { recursive: true });
      for (const [field, file] of Object.entries(NETWORK_FILES) as [keyof typeof NETWORK_FILES, string][]) {
        const text = answers[field];
        if (typeof text === 'string') await writeFile(path.join(folder, file), text);
      }
    }
  }
}

/** A program name as `device.yaml` lists it: one of `KNOWN_PROGRAMS`. */
function knownProgram(name: string): KnownProgram {
  const known = KNOWN_PROGRAMS.find((program) => program === name);
  if (known === undefined) throw new ScenarioError(`the program ${JSON.stringify(name)} is not one device.yaml can list`);
  return known;
}

/** Where a device path is stored under the scenario root. Device paths never hold `..` (see rootedFiles). */
function locate(base: string, devicePath: string): string {
  if (!devicePath.startsWith('/') || devicePath.split('/').includes('..') || devicePath.includes('\0')) {
    throw new ScenarioError(`cannot store the device path ${JSON.stringify(devicePath)} in a scenario`);
  }
  return path.join(base, devicePath);
}

/**
 * Where a device path lands under `base` once the links written so far are followed: the longest
 * existing prefix resolved, the rest appended.
 */
async function physical(base: string, devicePath: string): Promise<string> {
  let current = base;
  for (const segment of devicePath.split('/').filter((s) => s !== '')) {
    const next = path.join(current, segment);
    const resolved = await realpath(next).catch(() => null);
    if (resolved === null) {
      current = next;
      continue;
    }
    if (resolved !== base && !resolved.startsWith(base + path.sep)) {
      throw new ScenarioError(`the recorded path ${devicePath} leads outside the scenario`);
    }
    current = resolved;
  }
  return current;
}

async function exists(file: string, orLink = false): Promise<boolean> {
  if (orLink)
    return lstat(file).then(
      () => true,
      () => false,
    );
  return realpath(file).then(
    () => true,
    () => false,
  );
}

function depth(devicePath: string): number {
  return devicePath.split('/').filter((s) => s !== '').length;
}

function parentOf(devicePath: string): string {
  return path.posix.dirname(devicePath.replace(/\/+$/, '')) || '/';
}

function joinDevicePath(dir: string, name: string): string {
  return `${dir.replace(/\/+$/, '')}/${name}`;
}
