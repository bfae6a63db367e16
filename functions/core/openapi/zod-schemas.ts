/**
 * What the OpenAPI generator reads of a zod schema: whether a value is one, the shape of a
 * `z.object`, and a schema as JSON Schema in place.
 */
import * as z from 'zod/mini';
import type { $ZodObject, JSONSchema } from 'zod/v4/core';
import type { Schema } from './types.ts';

/** The shape of a `z.object`, or undefined for any other schema. */
export function objectShape(schema: Schema): Readonly<Record<string, Schema>> | undefined {
  return schema._zod.def.type === 'object' ? (schema as $ZodObject)._zod.def.shape : undefined;
}

/** Whether a value is a zod schema. */
export function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && '_zod' in value;
}

/** A schema in place (a path parameter's), as a request is checked against it. */
export function inlineSchema(schema: Schema): JSONSchema.BaseSchema {
  const { $schema: _, ...json } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any', metadata: z.registry() });
  return json;
}
