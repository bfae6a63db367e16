import { defineRoute } from '../core/route.ts';
import type { Handler } from '../core/handler.ts';
import { loadChute } from './lookup.ts';
import { pathParams } from './params.ts';
import { keptChuteRecord } from './chute-record.ts';
import { ChuteRecordSchema, type ChuteRecord, ChuteRequestSchema } from './schemas.ts';

export const route = defineRoute('GET /api/v1/chutes/:chute', 'One installed chute');
export const request = ChuteRequestSchema;
export const response = ChuteRecordSchema;

/**
 * The record of one installed chute, its state from the container engine.
 *
 * @example
 * await handle(input, device) // { name: 'hotspot', version: '2.1', state: 'running', environment: { … }, allocation: { cpu_shares: 512, prioritize_traffic: true }, resources: null }
 */
export const handle: Handler<ChuteRecord> = async (input, device) => {
  const { chute } = pathParams(input, ['chute']);
  const [stored, containers] = await Promise.all([loadChute(device, chute), device.containers()]);
  return keptChuteRecord(device, stored, containers);
};
