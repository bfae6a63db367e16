import { readFile } from 'node:fs/promises';

/**
 * A text file's contents, or null when it does not exist; any other failure (no permission, a
 * folder) is thrown.
 *
 * @example
 * await readIfExists('/var/lib/chutebox/provision.json') // null on a fresh install
 */
export async function readIfExists(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}
