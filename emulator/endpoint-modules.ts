import type { Handler } from '../functions/core/handler.ts';
import type { Route } from '../functions/core/route.ts';

/** An endpoint module of functions/ (`functions/<area>/<resource>.<method>.ts`): its route and its handler. */
export interface EndpointModule {
  route: Route;
  handle: Handler;
}

/** An endpoint module's file name, as the build finds them (esbuild.config.mjs `ENDPOINT_FILE`). */
const ENDPOINT_FILE = /^[a-z0-9]+(?:-[a-z0-9]+)*\.(?:get|put|post|delete)\.ts$/;

/**
 * Every endpoint module, in the build's order (area, then file name): what the browser's
 * `chuteboxHandlers` mounts, as there are no function bundles to import there. This code runs from
 * source only (tests): the browser build (esbuild.config.mjs, `lib-msw.browser`) puts in its place a
 * module that imports each endpoint module statically, so the bundle holds them all.
 *
 * @example
 * (await endpointModules()).map((module) => module.route.path); // ['/api/v1/chutes/:chute/…', …]
 */
export async function endpointModules(): Promise<EndpointModule[]> {
  const { readdir } = await import('node:fs/promises');
  const root = new URL('../functions/', import.meta.url);
  const modules: EndpointModule[] = [];
  for (const area of (await readdir(root, { withFileTypes: true }))
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()) {
    for (const file of (await readdir(new URL(`${area}/`, root))).sort()) {
      if (ENDPOINT_FILE.test(file)) modules.push((await import(new URL(`${area}/${file}`, root).href)) as EndpointModule);
    }
  }
  return modules;
}
