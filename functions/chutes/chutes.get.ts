import { defineRoute } from '../core/route.ts';
import type { Handler } from '../core/handler.ts';
import { reusingLast } from '../core/reusing-last.ts';
import { type ChuteRecord, keptChuteRecord } from './chute-record.ts';
import { ChuteListSchema, type ChuteList, ChuteListRequestSchema } from './schemas.ts';

export const route = defineRoute('GET /api/v1/chutes', 'The installed chutes');
export const request = ChuteListRequestSchema;
export const response = ChuteListSchema;

/**
 * The record of every installed chute, sorted by name, their states from one look at the container
 * engine. `/api/v1/chutes/` answers the same.
 *
 * @example
 * await handle(input, device) // [{ name: 'hello-world', version: '1', state: 'running', environment: { … }, allocation: { cpu_shares: 1024, prioritize_traffic: false }, resources: null }, …]
 */
export const handle: Handler<ChuteList> = async (_input, device) => {
  const [names, containers] = await Promise.all([device.chuteNames(), device.containers()]);
  const chutes = await Promise.all([...names].sort().map((name) => device.chute(name)));
  return listOf(device, ...chutes.filter((chute) => chute !== null).map((chute) => keptChuteRecord(device, chute, containers)));
};

/** The records in one list, made again only when one changed: a poll is answered the same frozen list. */
const listOf = reusingLast((...records: ChuteRecord[]): ChuteRecord[] => records);
