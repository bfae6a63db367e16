import type { Handler } from '../core/handler.ts';
import { defineRoute } from '../core/route.ts';
import { NoInputSchema, PdconfStatusSchema, type PdconfStatus } from './schemas.ts';

export const route = defineRoute('GET /api/v1/config/pdconf', 'The sections pdconf rendered, and whether each applied (for debugging)');
export const request = NoInputSchema;
export const response = PdconfStatusSchema;

/**
 * Each UCI section pdconf rendered from the host configuration and the chutes' networks (files
 * network, wireless, dhcp, firewall) with how its file's last apply went: `{type, name, comment,
 * success, age}`. When nothing was ever rendered, it renders first (without applying: `age` null).
 *
 * @example
 * await handle(input, device) // [{ type: 'interface', name: 'loopback', comment: 'network: applied with /etc/init.d/network reload', success: true, age: 42 }, …]
 */
export const handle: Handler<PdconfStatus> = async (_input, device) => device.hostConfig.pdconf();
