import {
  BatchGetItemCommand,
  ConditionalCheckFailedException,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  type AttributeValue,
} from '@aws-sdk/client-dynamodb';
import { gunzipSync, gzipSync } from 'node:zlib';
import { HttpProblem } from '../../../functions/core/problem.ts';
import { TABLE_KEY } from './fleet-table.ts';

/*
 * What a fleet on Lambda keeps in DynamoDB (docs/decisions/0057-the-fleet-state-in-dynamodb.md): one
 * item per device that differs from the device its seed makes, `{device, version, document}`, the
 * document gzipped JSON, and `apitoken` (a string) when the device is provisioned: the secret its
 * controller gave, kept out of the document as a state leaves it out, and read only by the functions. Every write names the version it read, so two writes that read the same one
 * cannot both land: the second is refused, and its invocation runs again on what the first wrote.
 */

/** The most bytes a stored document takes, gzipped: an item holds at most 400 KB, its key and version included. */
export const MAX_DOCUMENT_BYTES = 384 * 1024;

/** A document as stored, and the version it was written as (1 for the first). */
export interface Stored {
  version: number;
  document: unknown;
  /** The apitoken stored beside the document, when one was. */
  apitoken?: string;
}

/** The items of a fleet's table, by key. */
export interface DeviceStore {
  /** What is stored under `key` now (a strongly consistent read); null when nothing is. */
  read(key: string): Promise<Stored | null>;
  /** What is stored under each key (strongly consistent reads), in the order of `keys`; null where nothing is. */
  readMany(keys: readonly string[]): Promise<(Stored | null)[]>;
  /**
   * Stores `document` (and `apitoken`, beside it) under `key` as the version after `after` (null: the
   * first), in place of what was stored, unless another write came first: then nothing is written and
   * it answers false.
   *
   * @throws HttpProblem 507 when the document is larger than an item holds; nothing is written.
   */
  write(key: string, document: unknown, after: number | null, apitoken?: string): Promise<boolean>;
}

/** How the store reaches DynamoDB: its table, and another endpoint than AWS's (dynalite in tests). */
export interface DynamoStoreOptions {
  table: string;
  endpoint?: string | undefined;
}

/** How long a request to DynamoDB may take, in ms, before it is tried again (the SDK tries three times). */
const REQUEST_TIMEOUT_MS = 3000;

/** The most keys one BatchGetItem asks for. */
const BATCH_KEYS = 100;

/**
 * The store over a DynamoDB table whose partition key is `TABLE_KEY` (a string), with the AWS SDK's
 * credentials and region as Lambda gives them.
 *
 * @example
 * const store = dynamoDeviceStore({ table: process.env.CHUTEBOX_FLEET_TABLE });
 * const stored = await store.read('router-42'); // null: untouched
 * await store.write('router-42', { state: {…} }, null); // true: version 1
 */
export function dynamoDeviceStore(options: DynamoStoreOptions): DeviceStore {
  const client = new DynamoDBClient({
    ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint }),
    requestHandler: { connectionTimeout: REQUEST_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS },
  });
  const TableName = options.table;
  return {
    async read(key) {
      const answer = await client.send(new GetItemCommand({ TableName, Key: { [TABLE_KEY]: { S: key } }, ConsistentRead: true }));
      return answer.Item === undefined ? null : storedOf(answer.Item, key);
    },
    async readMany(keys) {
      const found = new Map<string, Stored>();
      for (let start = 0; start < keys.length; start += BATCH_KEYS) {
        let asked: Record<string, AttributeValue>[] = keys.slice(start, start + BATCH_KEYS).map((key) => ({ [TABLE_KEY]: { S: key } }));
        // DynamoDB may answer part of a batch and hand back the rest: asked again until none is left.
        while (asked.length > 0) {
          const answer = await client.send(new BatchGetItemCommand({ RequestItems: { [TableName]: { Keys: asked, ConsistentRead: true } } }));
          for (const item of answer.Responses?.[TableName] ?? []) found.set(item[TABLE_KEY]!.S!, storedOf(item, item[TABLE_KEY]!.S!));
          asked = answer.UnprocessedKeys?.[TableName]?.Keys ?? [];
        }
      }
      return keys.map((key) => found.get(key) ?? null);
    },
    async write(key, document, after, apitoken) {
      const bytes = gzipSync(JSON.stringify(document));
      if (bytes.length > MAX_DOCUMENT_BYTES) {
        throw new HttpProblem(
          507,
          `${key}'s state would take ${bytes.length} bytes gzipped, more than the ${MAX_DOCUMENT_BYTES} its table's item holds: nothing was changed`,
        );
      }
      const version = (after ?? 0) + 1;
      const condition =
        after === null
          ? { ConditionExpression: 'attribute_not_exists(#key)', ExpressionAttributeNames: { '#key': TABLE_KEY } }
          : { ConditionExpression: 'version = :read', ExpressionAttributeValues: { ':read': { N: String(after) } } };
      try {
        const Item: Record<string, AttributeValue> = { [TABLE_KEY]: { S: key }, version: { N: String(version) }, document: { B: bytes } };
        if (apitoken !== undefined) Item.apitoken = { S: apitoken };
        await client.send(new PutItemCommand({ TableName, Item, ...condition }));
        return true;
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return false;
        throw error;
      }
    },
  };
}

/** An item as the store answers it. */
function storedOf(item: Record<string, AttributeValue>, key: string): Stored {
  const version = Number(item.version?.N);
  const bytes = item.document?.B;
  if (!Number.isSafeInteger(version) || bytes === undefined) throw new Error(`the item of ${key} in the fleet's table has no version or document`);
  const document: unknown = JSON.parse(gunzipSync(bytes).toString('utf8'));
  return item.apitoken?.S === undefined ? { version, document } : { version, document, apitoken: item.apitoken.S };
}
