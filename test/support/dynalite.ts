import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import { TABLE_KEY } from '../../emulator/fleet/lambda/fleet-table.ts';

/** A DynamoDB API on this machine: dynalite in memory on a loopback port, with a fleet's table made as the CDK stack makes it. */
export interface Dynalite {
  /** `http://127.0.0.1:PORT`, for `CHUTEBOX_DYNAMODB_ENDPOINT`. */
  endpoint: string;
  /** The environment an AWS SDK client needs to reach it: a region and credentials, which dynalite takes whatever they are. */
  awsEnv: Record<string, string>;
  /** Makes a table keyed as a fleet's (`device`, a string), billed on demand, and answers its name. */
  table(name: string): Promise<string>;
  close(): Promise<void>;
}

/** The region and credentials every test's AWS SDK client uses against dynalite. */
export const DYNALITE_AWS_ENV = {
  AWS_REGION: 'eu-central-1',
  AWS_ACCESS_KEY_ID: 'dynalite',
  AWS_SECRET_ACCESS_KEY: 'dynalite',
  // The SDK's notice that its releases after January 2027 need Node 22, once per process: not the tests' concern.
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
} as const;

/**
 * Starts dynalite in this process, its data in memory: nothing is left on disk, and `close()` stops
 * it. Sets `DYNALITE_AWS_ENV` in this process's environment (for the SDK clients of the test) until it closes.
 *
 * @example
 * const db = await startDynalite();
 * process.env.CHUTEBOX_DYNAMODB_ENDPOINT = db.endpoint;
 * process.env.CHUTEBOX_FLEET_TABLE = await db.table('fleet');
 */
export async function startDynalite(): Promise<Dynalite> {
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const saved = Object.fromEntries(Object.keys(DYNALITE_AWS_ENV).map((name) => [name, process.env[name]]));
  Object.assign(process.env, DYNALITE_AWS_ENV);
  const client = new DynamoDBClient({ endpoint, region: DYNALITE_AWS_ENV.AWS_REGION });
  return {
    endpoint,
    awsEnv: { ...DYNALITE_AWS_ENV },
    async table(name) {
      await client.send(
        new CreateTableCommand({
          TableName: name,
          KeySchema: [{ AttributeName: TABLE_KEY, KeyType: 'HASH' }],
          AttributeDefinitions: [{ AttributeName: TABLE_KEY, AttributeType: 'S' }],
          BillingMode: 'PAY_PER_REQUEST',
        }),
      );
      return name;
    },
    async close() {
      client.destroy();
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
      server.closeAllConnections?.();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}

/**
 * dynalite for the tests of one file: started before them, stopped after them.
 *
 * @example
 * const db = useDynalite();
 * it('…', async () => { const table = await db().table('devices'); … });
 */
export function useDynalite(): () => Dynalite {
  let started: Dynalite | undefined;
  beforeAll(async () => {
    started = await startDynalite();
  });
  afterAll(async () => {
    await started?.close();
  });
  return () => {
    if (started === undefined) throw new Error('useDynalite: dynalite runs only while the tests run');
    return started;
  };
}
