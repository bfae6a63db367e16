import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { FunctionBundle } from '../../functions/core/bundle.ts';
import { routePaths, type Route } from '../../functions/core/route.ts';

/** The file the build writes beside the functions folder: every bundle's route (see esbuild.config.mjs). */
export const MANIFEST_FILE = 'manifest.json';

/** A bundle as mounted: its route and what runs it (a Lambda handler is not needed to serve). */
export type Mountable = Pick<FunctionBundle, 'route' | 'invoke'>;

export interface MountOptions {
  /** Where a listed bundle's function comes from instead of its file (undefined: its file), as emulate takes them all from one bundle (emulator/all-functions.ts). */
  importing?: (file: string) => Promise<Mountable | undefined>;
}

/**
 * One mounted function: its route, known before its bundle is imported, and the bundle, imported on
 * the first request (`load`) and kept (`loaded`).
 */
export interface MountedFunction {
  route: Route;
  /** The bundle once imported; undefined until the first `load()` has finished. */
  loaded: Mountable | undefined;
  /** Imports the bundle once; later calls share that import. */
  load(): Promise<Mountable>;
}

/**
 * The functions of a folder, sorted by file name, for mounting without importing them: the routes of
 * the bundles that `manifest.json` beside the folder lists (as the build writes it) come from it, and
 * each bundle is imported on its first request. A bundle the manifest does not list (a folder put
 * together by hand, `--functions DIR`) is imported now, to read its route.
 *
 * @throws Error when the folder cannot be read, a bundle is not a function bundle, or two bundles
 * answer the same method and path (a route's aliases included).
 * @example
 * const functions = await mountFunctions('dist/functions'); // [{ route: { method: 'GET', path: '/api/v1/info/features', … }, loaded: undefined, load }, …]
 */
export async function mountFunctions(dir: string, options: MountOptions = {}): Promise<MountedFunction[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    throw new Error(`cannot read the functions folder ${dir}: ${(error as Error).message}`);
  }
  const listed = await manifestRoutes(dir);
  const mounted: MountedFunction[] = [];
  const seen = new Map<string, string>();
  for (const name of names.filter((file) => file.endsWith('.mjs')).sort()) {
    const file = path.join(dir, name);
    const fn = listed.has(name) ? lazyFunction(file, listed.get(name)!, options.importing) : loadedFunction(await importBundle(file));
    for (const routePath of routePaths(fn.route)) {
      const key = `${fn.route.method} ${routePath}`;
      if (seen.has(key)) throw new Error(`${file} and ${seen.get(key)} both answer ${key}`);
      seen.set(key, file);
    }
    mounted.push(fn);
  }
  return mounted;
}

/** The routes `manifest.json` beside `dir` gives for bundles in `dir`, by file name; none without a manifest. */
async function manifestRoutes(dir: string): Promise<Map<string, Route>> {
  const routes = new Map<string, Route>();
  const distDir = path.dirname(path.resolve(dir));
  let text: string;
  try {
    text = await readFile(path.join(distDir, MANIFEST_FILE), 'utf8');
  } catch {
    return routes;
  }
  const { functions } = JSON.parse(text) as { functions?: (Route & { file: string })[] };
  for (const { file, method, path: routePath, aliases, summary, body, upload, public: open } of functions ?? []) {
    // Only entries for this very folder: a manifest beside another folder says nothing of it.
    if (path.dirname(path.join(distDir, file)) !== path.resolve(dir)) continue;
    routes.set(path.basename(file), {
      method,
      path: routePath,
      summary,
      ...(aliases === undefined ? {} : { aliases }),
      ...(body === undefined ? {} : { body }),
      ...(upload === undefined ? {} : { upload }),
      ...(open === undefined ? {} : { public: open }),
    });
  }
  return routes;
}

function lazyFunction(file: string, route: Route, from: MountOptions['importing']): MountedFunction {
  let importing: Promise<Mountable> | undefined;
  const fn: MountedFunction = {
    route,
    loaded: undefined,
    load: () =>
      (importing ??= (from === undefined ? importBundle(file) : from(file).then((found) => found ?? importBundle(file))).then((bundle) => {
        const [built, listed] = [bundle.route, route].map((r) => `${r.method} ${routePaths(r).join(', ')}`);
        if (built !== listed) throw new Error(`${file} answers ${built}, not ${listed} as ${MANIFEST_FILE} says: build again`);
        return (fn.loaded = bundle);
      })),
  };
  return fn;
}

function loadedFunction(bundle: Mountable): MountedFunction {
  return { route: bundle.route, loaded: bundle, load: () => Promise.resolve(bundle) };
}

async function importBundle(file: string): Promise<Mountable> {
  const bundle = (await import(pathToFileURL(file).href)) as Partial<Mountable>;
  if (typeof bundle.invoke !== 'function' || typeof bundle.route?.path !== 'string' || typeof bundle.route.method !== 'string') {
    throw new Error(`${file} is not a function bundle: it must export route and invoke`);
  }
  return bundle as Mountable;
}
