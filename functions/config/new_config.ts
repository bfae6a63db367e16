import type { Handler, Reply } from '../core/invoke.ts';
import { defineRoute } from '../core/route.ts';
import { handle as newConfig } from './new-config.ts';
import { HostConfiguration, NoInput } from './schemas.ts';

export const route = defineRoute({ name: 'config-new_config', method: 'GET', path: '/api/v1/config/new_config', summary: 'A host configuration generated from the hardware (the spelling of ParaDrop\'s sample)' });
export const request = NoInput;
export const response = HostConfiguration;

/** The same answer as GET /api/v1/config/new-config: ParaDrop's sample request writes the path with `_`. */
export const handle: Handler<Reply> = newConfig;
