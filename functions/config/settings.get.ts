import { defineRoute } from '../core/route.ts';
import type { Handler } from '../core/handler.ts';
import { NoInputSchema, SettingsRecordSchema, type SettingsRecord } from './schemas.ts';

export const route = defineRoute('GET /api/v1/config/settings', 'Every setting, read-only, with lower-case names');
export const request = NoInputSchema;
export const response = SettingsRecordSchema;

/**
 * The settings the daemon loaded at start (settings file, then environment, then flags), with its real
 * paths and the port it listens on.
 *
 * @example
 * await handle(input, device) // { portal_server_port: 8080, state_dir: '/var/lib/chutebox', docker_socket: '/var/run/docker.sock', … }
 */
export const handle: Handler<SettingsRecord> = async (_input, device) => device.settings();
