import { DEFAULT_UPLOAD_LIMIT } from '../functions/core/body/decode.ts';
import { bundleInvoke } from '../functions/core/bundle.ts';
import { apiApp, type ApiFunction } from '../runtime/http/api.ts';
import { endpointModules, type EndpointModule } from './endpoint-modules.ts';
import { emulatorAdmin } from './admin.ts';
import type { FaultRuleInput } from './faults/rule.ts';
import { routerHandlers, type ChuteboxHandlers } from './msw-router.ts';
import { scenarioFromDocument, type ScenarioOptions } from './scenario/core.ts';
import type { CompiledScenario } from './scenario/tree.ts';

export type { ChuteboxHandlers } from './msw-router.ts';
export type { CompiledScenario } from './scenario/tree.ts';

/** How the browser's `chuteboxHandlers` answers: the router's base URL, its compiled scenario, and how it is emulated. */
export interface BrowserHandlersOptions extends Pick<ScenarioOptions, 'changeDelayMs' | 'controller' | 'settings' | 'seed' | 'still' | 'clock'> {
  /** The URL the code under test calls the router at, e.g. `http://router.test`; requests under it are answered. */
  baseUrl: string;
  /**
   * The scenario, compiled to one document: a built-in one as the package ships it
   * (`chutebox/scenarios/default.json`), or a recorded one compiled with `chutebox scenario compile DIR`.
   * Checked when the router is made; a JSON module's inferred type (`format: string`) is taken as it is.
   */
  scenario: CompiledScenario | { format: string; name: string };
  /**
   * Whether requests need credentials: only `false` (the default) in a browser, which has no account
   * store; `chutebox emulate` and the Node handlers serve the emulator's account.
   */
  auth?: false;
  /** Allowed CORS origin(s), as `chutebox emulate --cors-origin` takes them; default `*`. */
  corsOrigin?: string;
  /** Largest upload, in bytes; default 512 MiB (a state a PUT of `/_chutebox/state` takes has its own limit, `STATE_LIMITS`). */
  uploadLimit?: number;
  /** Fault rules to start with, and to go back to at a reset, as `chutebox emulate --faults` takes them (docs/emulator.md#faults). */
  faults?: readonly FaultRuleInput[];
}

/**
 * msw 2 request handlers for `setupWorker` in a browser: every request under `baseUrl` is answered by
 * an emulated router run in the page, with no server and no file system. The same HTTP layer as
 * `chutebox emulate` (`apiApp`: problem+json errors, 404 and 405 with `Allow`, body limits, CORS) with
 * every endpoint function bundled in (the modules of functions/, each run through `bundleInvoke` as its
 * bundle runs it), on a scenario device made from a compiled scenario (`scenarioFromDocument`), and
 * the admin API (`/_chutebox/state`, `/_chutebox/clock`, `/_chutebox/faults`, with the fault rules
 * applied as msw gives them: `delay`, `HttpResponse.error()`). Without credentials (a browser has no account store), and
 * without the websockets (the hostapd control and change stream), the docs page and the chutes' web
 * pages, which answer 501. The array also carries the router's state: `reset()` between tests.
 *
 * The package serves this module to bundlers that take its `browser` condition (`chutebox/msw`);
 * Node gets emulator/msw.ts, which also takes a scenario name or folder.
 *
 * @throws TypeError for a base URL that is not an origin, or `auth: true`.
 * @throws ScenarioError (on the first request) when `scenario` is not a compiled scenario.
 * @example
 * import { setupWorker } from 'msw/browser';
 * import { chuteboxHandlers } from 'chutebox/msw';
 * import scenario from 'chutebox/scenarios/default.json';
 * await setupWorker(...chuteboxHandlers({ baseUrl: 'http://router.test', scenario })).start();
 * await fetch('http://router.test/api/v1/chutes/hotspot/networks/guest/stations');
 */
export function chuteboxHandlers(options: BrowserHandlersOptions): ChuteboxHandlers {
  if ((options.auth as boolean | undefined) === true) {
    throw new TypeError('auth: true is not served in a browser (there is no account store): leave it off, or use chutebox emulate');
  }
  return routerHandlers(options.baseUrl, async () => {
    const scenario = scenarioFromDocument(options.scenario, {
      ...(options.changeDelayMs === undefined ? {} : { changeDelayMs: options.changeDelayMs }),
      ...(options.controller === undefined ? {} : { controller: options.controller }),
      ...(options.settings === undefined ? {} : { settings: options.settings }),
      ...(options.seed === undefined ? {} : { seed: options.seed }),
      ...(options.still === undefined ? {} : { still: options.still }),
      ...(options.clock === undefined ? {} : { clock: options.clock }),
    });
    const uploadLimit = options.uploadLimit ?? DEFAULT_UPLOAD_LIMIT;
    const functions = mountedModules(await endpointModules());
    const { state, faults, mount, faulting } = await emulatorAdmin({ functions, scenario, faults: options.faults });
    const app = apiApp(functions, { device: scenario.device, auth: null, corsOrigin: options.corsOrigin, uploadLimit });
    mount(app, { auth: null, corsOrigin: options.corsOrigin });
    app.fetch = faulting(app.fetch, options.corsOrigin);
    return { app, state, faults, clock: scenario.clock };
  });
}

/**
 * Endpoint modules as `apiApp` mounts functions: loaded, each answering as its bundle would
 * (`bundleInvoke` with its handler).
 *
 * @throws Error when two modules answer the same method and path.
 */
function mountedModules(modules: readonly EndpointModule[]): ApiFunction[] {
  const seen = new Set<string>();
  return modules.map(({ route, handle }) => {
    for (const path of [route.path, ...(route.aliases ?? [])]) {
      const key = `${route.method} ${path}`;
      if (seen.has(key)) throw new Error(`two endpoint modules answer ${key}`);
      seen.add(key);
    }
    const loaded = { route, invoke: bundleInvoke(route, handle) };
    return { route, loaded, load: async () => loaded };
  });
}
