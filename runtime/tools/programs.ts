import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import path from 'node:path';
import { KNOWN_PROGRAMS } from '../../functions/info/features.ts';

/**
 * The names of `KNOWN_PROGRAMS` that are on a PATH (`searchPath`, `:`-separated), in that list's order:
 * a name counts when some absolute folder of the PATH holds an executable file of that name
 * (`access(X_OK)`, then not a folder), as `execvp` would find it. No shell, no `which`; relative and
 * empty PATH entries are skipped, as a daemon's working folder means nothing. Never fails: a folder
 * that cannot be read holds nothing. The answer is frozen.
 *
 * @example
 * await programsOnPath('/usr/sbin:/usr/bin:/sbin:/bin') // ['ip', 'iw', 'hostapd', 'hostapd_cli', 'dnsmasq', 'nsenter', 'nft']
 */
export async function programsOnPath(searchPath: string): Promise<readonly string[]> {
  const found = await Promise.all(KNOWN_PROGRAMS.map((name) => findProgram(name, searchPath)));
  return Object.freeze(KNOWN_PROGRAMS.filter((_name, index) => found[index] !== null));
}

/**
 * The executable file a program setting names: a path (with a `/`) as it is, or a name looked up in
 * the absolute folders of `searchPath` in order, as `execvp` would; null when there is none.
 *
 * @example
 * await findProgram('nft', '/usr/sbin:/usr/bin') // '/usr/sbin/nft'
 * await findProgram('/opt/bin/nft', '')         // '/opt/bin/nft', or null when it is not executable
 */
export async function findProgram(program: string, searchPath: string): Promise<string | null> {
  if (program.includes('/')) return (await isExecutableFile(program)) ? program : null;
  for (const folder of new Set(searchPath.split(':'))) {
    if (!path.isAbsolute(folder)) continue;
    const file = path.join(folder, program);
    if (await isExecutableFile(file)) return file;
  }
  return null;
}

/** Whether `file` may be executed (`access(X_OK)`, which a folder passes too) and is not a folder. */
async function isExecutableFile(file: string): Promise<boolean> {
  try {
    await access(file, constants.X_OK);
    return !(await stat(file)).isDirectory();
  } catch {
    return false;
  }
}
