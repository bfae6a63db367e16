/**
 * The component schemas of the OpenAPI document: of all the named schemas, those its paths and
 * component responses refer to, directly or through each other.
 */
import type { JSONSchema } from 'zod/v4/core';
import type { SchemaNames } from './schema-names.ts';
import type { OpenApiDocument } from './types.ts';

/** The named schemas that the paths and the component responses refer to, directly or through each other. */
export function usedSchemas(names: SchemaNames, document: OpenApiDocument): Record<string, JSONSchema.BaseSchema> {
  const all = names.convert();
  const used = new Set<string>();
  const visit = (value: unknown): void => {
    if (typeof value !== 'object' || value === null) return;
    for (const [key, child] of Object.entries(value)) {
      const id = key === '$ref' && typeof child === 'string' && child.startsWith('#/components/schemas/') ? child.slice(21) : undefined;
      if (id !== undefined && !used.has(id)) {
        used.add(id);
        visit(all[id]);
      } else visit(child);
    }
  };
  visit(document.paths);
  visit(document.components.responses);
  return Object.fromEntries(Object.keys(all).flatMap((id) => (used.has(id) ? [[id, all[id]!]] : [])));
}
