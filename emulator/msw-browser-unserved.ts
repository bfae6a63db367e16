import { HttpProblem } from '../functions/core/problem.ts';

/**
 * What the browser build of `chuteboxHandlers` (emulator/msw-browser.ts) puts in place of the HTTP
 * layer's lazily loaded parts that need Node: the websockets (runtime/http/websocket.ts), the docs
 * page (runtime/http/docs.ts), the portal (runtime/http/portal.ts), the chutes' web pages (runtime/http/chute-proxy.ts) and Prometheus'
 * scrape (runtime/http/metrics.ts). Each answers a
 * 501 problem naming what to use instead (esbuild.config.mjs, `browserParts`). A chute's log (`GET /api/v1/chutes/<chute>/logs`)
 * needs no Node: it is served.
 */
function unserved(what: string): () => Promise<never> {
  return async () => {
    throw new HttpProblem(501, `${what} is not served by chutebox's msw handlers in a browser: use chutebox emulate`);
  };
}

export const hostapdControl = unserved('the hostapd control websocket');
export const changeStream = unserved('the change stream websocket');
export const chuteLogSocket = unserved("a chute's log websocket");
export const docs = unserved('the API reference page');
export const portal = unserved("the device's portal");
export const chuteWeb = unserved("a chute's web page");
export const metrics = unserved("Prometheus' metrics");
