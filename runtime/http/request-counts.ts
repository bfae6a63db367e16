/**
 * The upper bounds of the request duration buckets, in seconds: a device answers most requests in a
 * few milliseconds, a change or an upload in seconds.
 */
export const DURATION_BUCKETS: readonly number[] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The requests answered with one method, route and status. */
export interface RequestCount {
  method: string;
  /** The route that answered, as mounted; null when none did (a 404 or 405). */
  route: string | null;
  status: number;
  /** How many took at most each bound of `DURATION_BUCKETS` and more than the one before; the last, more than every bound. */
  buckets: number[];
  /** Their time taken, in all, in seconds. */
  seconds: number;
}

/** What a counted request must say: `ApiOptions.answered`'s `AnsweredRequest` (runtime/http/api.ts) says it. */
export interface CountedRequest {
  method: string;
  route: string | null;
  status: number;
  seconds: number;
}

/** Counts the requests an app answered, for `GET /metrics`. */
export interface RequestCounter<R extends CountedRequest = CountedRequest> {
  /** Counts one answered request: what `ApiOptions.answered` is told (runtime/http/api.ts). */
  count(request: R): void;
  /** The counts so far, one per method, route and status (the same objects, counting on). */
  counts(): readonly RequestCount[];
}

/**
 * Plain counters of answered requests, by method, route and status, with their durations in
 * buckets: three map lookups and two additions a request, whatever reads them. Bounded: routes are
 * those mounted, methods those Node's parser takes, statuses those the app answers. `next` is told
 * of each request after it is counted (the daemon log's request lines).
 *
 * @example
 * const requests = requestCounter();
 * const app = apiApp(functions, { device, auth, answered: requests.count, requestCounts: requests.counts });
 */
export function requestCounter<R extends CountedRequest>(next?: (request: R) => void): RequestCounter<R> {
  // By route, method and status: the route and method strings are the app's own, so each lookup hashes nothing new.
  const byRoute = new Map<string | null, Map<string, Map<number, RequestCount>>>();
  const all: RequestCount[] = [];
  return {
    count(request) {
      const { method, route, status, seconds } = request;
      let methods = byRoute.get(route);
      if (methods === undefined) byRoute.set(route, (methods = new Map()));
      let statuses = methods.get(method);
      if (statuses === undefined) methods.set(method, (statuses = new Map()));
      let count = statuses.get(status);
      if (count === undefined) {
        statuses.set(status, (count = { method, route, status, buckets: DURATION_BUCKETS.map(() => 0).concat(0), seconds: 0 }));
        all.push(count);
      }
      let bucket = 0;
      while (bucket < DURATION_BUCKETS.length && seconds > DURATION_BUCKETS[bucket]!) bucket++;
      count.buckets[bucket]! += 1;
      count.seconds += seconds;
      next?.(request);
    },
    counts: () => [...all],
  };
}
