import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { FunctionBundle } from '../../functions/core/bundle.ts';
import type { ShardSummary } from '../../emulator/fleet/lambda/outbound-shard.ts';

/** A function bundle's Lambda `handler`, as Lambda calls it. */
export type LambdaHandler = (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>;

/**
 * The `handler` of `dist/functions/<name>.mjs`; with `instance`, a fresh copy of the module (the query
 * makes Node load it again), as a new Lambda instance has.
 */
export async function lambdaBundle(name: string, instance?: string): Promise<LambdaHandler> {
  const url = new URL(`../../dist/functions/${name}.mjs${instance === undefined ? '' : `?instance=${instance}`}`, import.meta.url);
  const module = (await import(/* @vite-ignore */ url.href)) as FunctionBundle;
  return module.handler as LambdaHandler;
}

/** The outbound handler of a fleet on Lambda, as a schedule invokes it. */
export type OutboundHandler = (event: unknown, context: Pick<Context, 'getRemainingTimeInMillis'>) => Promise<ShardSummary>;

/**
 * The `handler` of `dist/fleet-outbound.mjs`; with `instance`, a fresh copy of the module, which reads
 * its environment again on its first invocation, as a new Lambda instance does.
 */
export async function outboundHandler(instance?: string): Promise<OutboundHandler> {
  const url = new URL(`../../dist/fleet-outbound.mjs${instance === undefined ? '' : `?instance=${instance}`}`, import.meta.url);
  return ((await import(/* @vite-ignore */ url.href)) as { handler: OutboundHandler }).handler;
}

/** Events made so far by this process: each gets a request id of its own, as API Gateway gives. */
let made = 0;

/**
 * An API Gateway HTTP API (payload format 2.0) event as Lambda receives it for a request without a
 * body or query. A named stage puts its name in front of the path; `$default` does not.
 */
export function httpApiEvent(method: string, path: string, stage = '$default'): APIGatewayProxyEventV2 {
  const rawPath = stage === '$default' ? path : `/${stage}${path}`;
  const domainName = 'r3pmxmplak.execute-api.eu-central-1.amazonaws.com';
  made += 1;
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath,
    rawQueryString: '',
    cookies: ['theme=dark'],
    headers: {
      accept: 'application/json',
      'accept-encoding': 'gzip, deflate, br',
      'content-length': '0',
      host: domainName,
      'user-agent': 'curl/8.5.0',
      'x-amzn-trace-id': 'Root=1-6740a5c0-1a2b3c4d5e6f708192a3b4c5',
      'x-forwarded-for': '198.51.100.23',
      'x-forwarded-port': '443',
      'x-forwarded-proto': 'https',
    },
    requestContext: {
      accountId: '123456789012',
      apiId: 'r3pmxmplak',
      domainName,
      domainPrefix: 'r3pmxmplak',
      http: { method, path: rawPath, protocol: 'HTTP/1.1', sourceIp: '198.51.100.23', userAgent: 'curl/8.5.0' },
      requestId: `Bq3xAiDrliAEJ5g-${process.pid}-${made}`,
      routeKey: '$default',
      stage,
      time: '21/Nov/2025:10:00:00 +0000',
      timeEpoch: 1763719200000,
    },
    isBase64Encoded: false,
  };
}

/**
 * The event of a request with a JSON body, as API Gateway gives one.
 *
 * @example
 * await handler(jsonEvent('PUT', '/devices/router-3/api/v1/chutes/hotspot/networks/guest/ssid', { ssid: 'lab' }));
 */
export function jsonEvent(method: string, path: string, body: unknown): APIGatewayProxyEventV2 {
  const event = httpApiEvent(method, path);
  const text = JSON.stringify(body);
  return { ...event, headers: { ...event.headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) }, body: text };
}
