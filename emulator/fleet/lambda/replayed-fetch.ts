/** What a request got: enough to answer it again. */
interface Exchange {
  status: number;
  statusText: string;
  headers: [string, string][];
  body: ArrayBuffer;
}

/** Statuses whose answer has no body. */
const NO_BODY = new Set([101, 204, 205, 304]);

/**
 * `fetch` that makes each exchange once: a request made again with the same method and URL is
 * answered what the first one got (or fails as it failed), without reaching the server. The outbound
 * handler runs a device's work again when another request wrote the device first; so the controller
 * gets each check and report once, and the rerun counts the same outcome on the device as that write left it.
 *
 * @example
 * const fetch = replayedFetch(globalThis.fetch);
 * await fetch(url, { method: 'POST', body }); // sent
 * await fetch(url, { method: 'POST', body }); // the same answer, not sent
 */
export function replayedFetch(fetch: typeof globalThis.fetch): typeof globalThis.fetch {
  const made = new Map<string, Promise<Exchange>>();
  return async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    const key = `${init?.method ?? (input instanceof Request ? input.method : 'GET')} ${url}`;
    let exchange = made.get(key);
    if (exchange === undefined) {
      exchange = fetch(input, init).then(async (response) => ({
        status: response.status,
        statusText: response.statusText,
        headers: [...response.headers],
        body: await response.arrayBuffer(),
      }));
      made.set(key, exchange);
    }
    const { body, ...head } = await exchange;
    return new Response(NO_BODY.has(head.status) ? null : body.slice(0), head);
  };
}
