/**
 * Headers of one connection, never passed on by a proxy (RFC 9110 §7.6.1, and `Proxy-Authorization`,
 * the credentials a client gives the proxy itself), in both directions. `Host` is the upstream's own.
 */
const HOP_BY_HOP = new Set([
  'connection',
  'proxy-connection',
  'keep-alive',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'proxy-authenticate',
  'proxy-authorization',
  'host',
]);

/** `headers` without those of one connection: `HOP_BY_HOP` and any its `Connection` header names. */
export function endToEnd(headers: Iterable<[string, string]>): [string, string][] {
  const entries = [...headers].map(([name, value]): [string, string] => [name.toLowerCase(), value]);
  const connection = entries.filter(([name]) => name === 'connection').map(([, value]) => value);
  const named = new Set(
    connection
      .join(',')
      .toLowerCase()
      .split(',')
      .map((token) => token.trim()),
  );
  return entries.filter(([name]) => !HOP_BY_HOP.has(name) && !named.has(name));
}
