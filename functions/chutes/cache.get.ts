import { defineRoute } from '../core/route.ts';
import { reusingLast } from '../core/reusing-last.ts';
import type { Handler } from '../core/handler.ts';
import { loadChute } from './lookup.ts';
import { pathParams } from './params.ts';
import { redactDocument } from '../config/secret-placeholders.ts';
import { ChuteCacheSchema, type ChuteCache, ChuteRequestSchema } from './schemas.ts';

export const route = defineRoute('GET /api/v1/chutes/:chute/cache', "The chute's cache, secrets redacted");
export const request = ChuteRequestSchema;
export const response = ChuteCacheSchema;

/**
 * The chute cache as a JSON object ({} when the chute has none), every secret (`apiToken`,
 * `acct_secret`, a Wi-Fi `key`, …) replaced by `[redacted]` at any depth.
 *
 * @example
 * await handle(input, device) // { containerId: 'cbaf…', networks: { wifi: { hostInterface: 'phy1-ap1', … } }, apiToken: '[redacted]' }
 */
export const handle: Handler<ChuteCache> = async (input, device) => {
  const { chute } = pathParams(input, ['chute']);
  return redactedCache(device, (await loadChute(device, chute)).cache);
};

/** The cache with its secrets redacted, made again only for another cache (a stored chute's is frozen). */
const redactedCache = reusingLast((cache: ChuteCache) => redactDocument(cache));
