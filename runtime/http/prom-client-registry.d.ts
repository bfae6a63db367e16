/**
 * prom-client's registry module alone, which writes the text format and OpenMetrics: the package's
 * index also loads its cluster aggregation, push gateway, default process metrics and OpenTelemetry
 * exemplars, which `GET /metrics` does not use (docs/decisions/0046-metrics.md).
 */
declare module 'prom-client/lib/registry.js' {
  import type { Registry } from 'prom-client';
  const registry: typeof Registry;
  export default registry;
}
