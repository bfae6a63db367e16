import { randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, readlink, rename, rm, symlink } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { gunzipSync } from 'node:zlib';
import { unpackTar } from 'modern-tar/fs';
import type { RuntimeRelease } from '../controller/client.ts';
import type { ChangeEffect } from '../changes/runner.ts';
import { syncDir } from '../state/atomic-write.ts';
import { runTool } from '../tools/run.ts';
import type { ProvisioningService } from './provisioning.ts';
import { takeRelease } from './take-release.ts';

/*
 * chutebox's own update (docs/decisions/0062-updates-and-snapd.md): a release of a built `dist/` from
 * the controller, checked, unpacked beside the one before it and made current by swapping a link.
 */

/** Where releases are kept below the state dir: one folder each, and the links `current` and `previous`. */
export const RELEASES_DIR = 'releases';

/** How long the check of a release's bundles may take. */
const CHECK_TIMEOUT_MS = 60_000;

/** The most bytes a gzipped release may unpack to. */
const MAX_UNPACKED_BYTES = 256 * 1024 * 1024;

/** A release's version as it may name a folder. */
const VERSION = /^[0-9A-Za-z][0-9A-Za-z.+_-]{0,63}$/;

/**
 * Loads every function bundle of the release in `process.argv[1]` (its manifest's `functions`) and
 * fails, printing the first that does not load or exports no `invoke` and why, unless each does: the
 * bundles load on this Node. A constant: the folder is an argument.
 */
const CHECK_BUNDLES = `
const { readFile } = await import('node:fs/promises');
const { join } = await import('node:path');
const { pathToFileURL } = await import('node:url');
const dir = process.argv[1];
const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8'));
for (const { file } of manifest.functions) {
  try {
    const bundle = await import(pathToFileURL(join(dir, file)).href);
    if (typeof bundle.invoke !== 'function') throw new Error('it exports no invoke');
  } catch (error) {
    console.error(file + ': ' + (error instanceof Error ? error.message : String(error)));
    process.exit(1);
  }
}
console.log(manifest.functions.length);
`;

export interface RuntimeUpdateOptions {
  stateDir: string;
  /** The controller's side: the release and its checked archive. */
  provisioning: Pick<ProvisioningService, 'release'>;
  /** The Node that checks the release; default this one. */
  node?: string;
}

/**
 * The effect of an `update-runtime` change on serve: takes the release the controller offers, its
 * SHA-256 checked (`takeRelease`), unpacks it beside
 * the releases kept (`installRelease`), checks that it loads and makes it `current`, the one before it
 * `previous`. Nothing changes when a step fails; the runtime runs the new release from its next start.
 */
export function runtimeUpdate(options: RuntimeUpdateOptions): ChangeEffect<'update-runtime'> {
  return async (_request, note) => {
    const offered = await takeRelease(options.provisioning, note);
    if (offered === null) return;
    const { release, archive } = offered;
    const installed = await installRelease(path.join(options.stateDir, RELEASES_DIR), release, archive, options.node ?? process.execPath);
    await note(`release ${release.version} is current (${RELEASES_DIR}/${installed}); chutebox runs it from its next start`);
  };
}

/**
 * Unpacks `archive` (a tar, gzipped or not, of a built `dist/`: files and folders only) into
 * `<releases>/<version>-<12 digits of its SHA-256>.partial`, checks it (`checkRelease`), renames it
 * without `.partial`, points `previous` at what `current` pointed at and `current` at it, each link
 * replaced by a rename, and removes every other release: two are kept. Answers the release's folder name.
 *
 * @throws Error saying which step failed; `current` and `previous` are then as they were.
 */
export async function installRelease(releases: string, release: RuntimeRelease, archive: Uint8Array, node: string): Promise<string> {
  if (!VERSION.test(release.version)) throw new Error(`release version ${JSON.stringify(release.version)} cannot name a folder`);
  const name = `${release.version}-${release.sha256.slice(0, 12)}`;
  await mkdir(releases, { recursive: true, mode: 0o700 });
  const before = await linkTarget(releases, 'current');
  if (before === name) return name;
  const partial = path.join(releases, `${name}.partial`);
  await rm(partial, { recursive: true, force: true });
  try {
    await unpack(archive, partial);
    await checkRelease(partial, release.version, node);
    await rm(path.join(releases, name), { recursive: true, force: true });
    await rename(partial, path.join(releases, name));
  } finally {
    await rm(partial, { recursive: true, force: true });
  }
  if (before !== null) await replaceLink(releases, 'previous', before);
  await replaceLink(releases, 'current', name);
  const kept = new Set([name, before, 'current', 'previous']);
  for (const entry of await readdir(releases)) if (!kept.has(entry)) await rm(path.join(releases, entry), { recursive: true, force: true });
  await syncDir(releases);
  return name;
}

/** Writes the archive's files and folders into `dir` (modern-tar keeps every path inside it). */
async function unpack(archive: Uint8Array, dir: string): Promise<void> {
  const gzipped = archive[0] === 0x1f && archive[1] === 0x8b;
  const tar = gzipped ? gunzipSync(archive, { maxOutputLength: MAX_UNPACKED_BYTES }) : archive;
  await mkdir(dir, { mode: 0o700 });
  try {
    await pipeline(Readable.from([tar]), unpackTar(dir, { strict: true, filter: (header) => header.type === 'file' || header.type === 'directory' }));
  } catch (error) {
    throw new Error(`the release's archive cannot be unpacked: ${(error as Error).message}`);
  }
}

/**
 * A release is usable when its `manifest.json` has its version, its CLI prints that version
 * (`chutebox.mjs --version`), and every function bundle loads on `node` (`CHECK_BUNDLES`).
 *
 * @throws Error naming what is wrong.
 */
async function checkRelease(dir: string, version: string, node: string): Promise<void> {
  const manifest = await readFile(path.join(dir, 'manifest.json'), 'utf8').catch(() => null);
  const said = manifest === null ? null : (JSON.parse(manifest) as { version?: unknown }).version;
  if (said !== version) throw new Error(`the release's manifest.json says version ${JSON.stringify(said)}, not ${version}`);
  const tool = { name: 'node', path: node, setting: 'the Node that runs chutebox' };
  const cli = await runTool(tool, [path.join(dir, 'chutebox.mjs'), '--version'], { timeoutMs: CHECK_TIMEOUT_MS, maxOutputBytes: 64 * 1024 });
  if (cli.code !== 0 || cli.stdout.trim() !== version) throw new Error(`the release's chutebox --version ${failure(cli)}, not ${version}`);
  const bundles = await runTool(tool, ['--input-type=module', '-e', CHECK_BUNDLES, dir], { timeoutMs: CHECK_TIMEOUT_MS, maxOutputBytes: 64 * 1024 });
  if (bundles.code !== 0) throw new Error(`a bundle of the release does not load: ${errorLine(bundles.stderr)}`);
}

/** What a run printed or how it ended, for a message. */
function failure(run: { code: number | null; stdout: string; stderr: string }): string {
  return run.code === 0 ? `printed ${JSON.stringify(run.stdout.trim())}` : `failed (${run.code}): ${errorLine(run.stderr)}`;
}

/** The line of Node's stderr that says what went wrong (`Error: …`), else its first. */
function errorLine(stderr: string): string {
  const lines = stderr.split('\n').filter((line) => line.trim() !== '');
  return lines.find((line) => /^\w*Error\b/.test(line)) ?? lines[0] ?? '';
}

/** Where the link `name` in `dir` points; null without one. */
async function linkTarget(dir: string, name: string): Promise<string | null> {
  return readlink(path.join(dir, name)).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  });
}

/** Points the link `name` in `dir` at `target` by renaming a new link over it: it never is missing. */
async function replaceLink(dir: string, name: string, target: string): Promise<void> {
  const fresh = path.join(dir, `.${name}.${randomUUID()}`);
  await symlink(target, fresh);
  await rename(fresh, path.join(dir, name));
}
