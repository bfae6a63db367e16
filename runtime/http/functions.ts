import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { FunctionBundle } from '../../functions/core/invoke.ts';

/**
 * Imports every function bundle (`*.mjs`) of a folder, sorted by file name.
 *
 * @throws Error when the folder cannot be read, a file is not a function bundle, or two bundles
 * answer the same method and path.
 * @example
 * const bundles = await loadFunctions('dist/functions'); // [{ route: { method: 'GET', path: '/api/v1/info/features', … }, invoke, handler }, …]
 */
export async function loadFunctions(dir: string): Promise<FunctionBundle[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    throw new Error(`cannot read the functions folder ${dir}: ${(error as Error).message}`);
  }
  const files = names.filter((name) => name.endsWith('.mjs')).sort();
  const bundles: FunctionBundle[] = [];
  const seen = new Map<string, string>();
  for (const name of files) {
    const file = path.join(dir, name);
    const bundle = (await import(pathToFileURL(file).href)) as Partial<FunctionBundle>;
    if (typeof bundle.invoke !== 'function' || typeof bundle.route?.path !== 'string' || typeof bundle.route.method !== 'string') {
      throw new Error(`${file} is not a function bundle: it must export route and invoke`);
    }
    const key = `${bundle.route.method} ${bundle.route.path}`;
    if (seen.has(key)) throw new Error(`${file} and ${seen.get(key)} both answer ${key}`);
    seen.set(key, file);
    bundles.push(bundle as FunctionBundle);
  }
  return bundles;
}
