/**
 * The request body of an operation in the OpenAPI document: its `body` schema as JSON (and YAML for a
 * `body: 'document'` route), then the route's `upload` media types as raw bytes.
 */
import { DOCUMENT_MEDIA_TYPES } from '../body/media-types.ts';
import type { SchemaNames } from './schema-names.ts';
import type { DescribedOperation, Json, Schema } from './types.ts';

/** The request body of an operation: its `body` schema in JSON (and YAML for a document route), then its upload media types; none without either. */
export function body(op: DescribedOperation, schema: Schema | undefined, names: SchemaNames): Json | undefined {
  const content: Record<string, Json> = {};
  const described = schema !== undefined && schema._zod.def.type !== 'undefined';
  if (described) {
    const types = op.route.body === 'document' ? DOCUMENT_MEDIA_TYPES : ['application/json'];
    for (const type of types) content[type] = { schema: names.ref(schema) };
  }
  // Raw bytes of any content: OpenAPI 3.1 describes them with an empty Media Type Object.
  for (const type of op.route.upload ?? []) content[type] = {};
  if (Object.keys(content).length === 0) return undefined;
  const optional = described && schema._zod.optin === 'optional' && (op.route.upload ?? []).length === 0;
  return { required: !optional, content };
}
