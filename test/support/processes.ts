import { readdir, readFile } from 'node:fs/promises';

/** State and process group (fields 3 and 5) of /proc/<pid>/stat, or null when there is no such process. */
async function procStat(pid: string | number): Promise<{ state: string; group: number } | null> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => null);
  if (stat === null) return null;
  // Field 2, `(comm)`, may hold spaces and parentheses: the fields after the last `)` start at field 3.
  const [state = '', , group] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { state, group: Number(group) };
}

/** Whether a process runs (a zombie left for its new parent to reap does not). */
export async function isRunning(pid: number): Promise<boolean> {
  const stat = await procStat(pid);
  return stat !== null && stat.state !== 'Z';
}

/**
 * The running processes (zombies are not) of process group `group`.
 *
 * @example
 * await groupMembers(applyPid) // [] once the command and its children are gone
 */
export async function groupMembers(group: number): Promise<number[]> {
  const members: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await procStat(entry);
    if (stat !== null && stat.group === group && stat.state !== 'Z') members.push(Number(entry));
  }
  return members;
}

/**
 * The running children (zombies are not) of process `parent` whose name (`/proc/<pid>/status` `Name`) is `name`.
 *
 * @example
 * await childrenNamed(server.child.pid!, 'hostapd_cli') // [] once serve let go of every hostapd
 */
export async function childrenNamed(parent: number, name: string): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const status = await readFile(`/proc/${entry}/status`, 'utf8').catch(() => '');
    const field = (key: string) => new RegExp(`^${key}:\\s*(\\S+)`, 'm').exec(status)?.[1];
    if (field('PPid') === String(parent) && field('Name') === name && field('State') !== 'Z') found.push(Number(entry));
  }
  return found;
}
