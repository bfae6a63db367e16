/**
 * The media types a document body (a chute configuration) is written in, JSON's and YAML's, and the
 * format a media type names.
 */
import { isJsonMediaType } from './decode.ts';

/** The media types a document body can be written in: JSON first (the default answer), then YAML's three names. */
export const DOCUMENT_MEDIA_TYPES = ['application/json', 'application/yaml', 'application/x-yaml', 'text/yaml'] as const;
export type DocumentMediaType = (typeof DOCUMENT_MEDIA_TYPES)[number];

/**
 * The format of a document's text from its media type (from `mediaType`): JSON (`application/json`, a
 * `+json` type), YAML (its three names, a `+yaml` type); null for any other type.
 */
export function documentKind(type: string): 'json' | 'yaml' | null {
  if (isJsonMediaType(type)) return 'json';
  if (type === 'application/yaml' || type === 'application/x-yaml' || type === 'text/yaml' || type.endsWith('+yaml')) return 'yaml';
  return null;
}
