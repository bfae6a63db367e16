/**
 * Route paths as the OpenAPI document writes them: `:name` parameters become `{name}`, and a path's
 * parameter names in order.
 */

/** `/api/v1/chutes/:chute` → `/api/v1/chutes/{chute}`. */
export function openApiPath(routePath: string): string {
  return routePath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

/** The parameter names of a route path, in order: `/api/v1/chutes/:chute/networks/:network` → `['chute', 'network']`. */
export function pathParameters(routePath: string): string[] {
  return [...routePath.matchAll(/:([A-Za-z0-9_]+)/g)].map((match) => match[1]!);
}
