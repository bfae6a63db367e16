/**
 * The component names of the schemas the OpenAPI document refers to: the `<Name>Schema` exports of
 * the schema modules, the problem's, then names after each operation; a `$ref` to each, and all of
 * them converted to JSON Schema.
 */
import * as z from 'zod/mini';
import type { JSONSchema } from 'zod/v4/core';
import { InputErrorSchema, ProblemSchema } from './problem-answers.ts';
import type { OpenApiOptions, Schema } from './types.ts';
import { isSchema, objectShape } from './zod-schemas.ts';

/** The component name of each schema the document refers to, and a `$ref` to it. */
export interface SchemaNames {
  ref(schema: Schema): { $ref: string };
  /** Every named schema as JSON Schema, each referring to the others by `$ref`. */
  convert(): Record<string, JSONSchema.BaseSchema>;
}

/**
 * The names of the schemas: the `<Name>Schema` exports of `options.schemaModules`, the problem's, then
 * one after its operation for each other schema an operation uses (a body, an answer, an event). Schemas are
 * converted as a request is checked against them (zod's `input`): what a schema accepts, the
 * document accepts.
 */
export function schemaNames(options: OpenApiOptions): SchemaNames {
  const registry = z.registry<{ id: string }>();
  const ids = new Map<Schema, string>();
  const taken = new Set<string>();
  const name = (schema: Schema, id: string) => {
    if (ids.has(schema) || taken.has(id)) return;
    ids.set(schema, id);
    taken.add(id);
    registry.add(schema, { id });
  };
  name(ProblemSchema, 'Problem');
  name(InputErrorSchema, 'InputError');
  for (const module of options.schemaModules ?? []) {
    for (const [key, value] of Object.entries(module)) if (key.endsWith('Schema') && key !== 'Schema' && isSchema(value)) name(value, key.slice(0, -6));
  }
  for (const op of options.operations) {
    const stem = op.name.replace(/(^|-)([a-z0-9])/g, (_, _dash, letter: string) => letter.toUpperCase());
    const requestBody = objectShape(op.request)?.body;
    if (requestBody !== undefined && requestBody._zod.def.type !== 'undefined') name(requestBody, `${stem}Body`);
    if (op.response !== undefined) name(op.response, `${stem}Answer`);
    if (op.events !== undefined) name(op.events, `${stem}Event`);
    for (const [status, answer] of Object.entries(op.answers ?? {})) name(answer.schema, `${stem}Answer${status}`);
  }
  return {
    ref: (schema) => {
      const id = ids.get(schema);
      if (id === undefined) throw new Error('a schema of the document has no name');
      return { $ref: `#/components/schemas/${id}` };
    },
    convert: () => {
      const { schemas } = z.toJSONSchema(registry, { io: 'input', unrepresentable: 'any', uri: (id) => `#/components/schemas/${id}` });
      return Object.fromEntries(
        Object.entries(schemas).map(([id, schema]) => {
          const { $schema: _, $id: __, ...json } = schema;
          if (json.$defs !== undefined) throw new Error(`the schema ${id} has $defs, which a component cannot keep: name the schemas it shares`);
          return [id, json];
        }),
      );
    },
  };
}
