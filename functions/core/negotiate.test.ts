import { describe, expect, it } from 'vitest';
import { preferredMediaType } from './negotiate.ts';

const OFFERED = ['application/json', 'application/yaml', 'application/x-yaml', 'text/yaml'] as const;
const pick = (accept: string | undefined) => preferredMediaType(accept, OFFERED);

describe('preferredMediaType', () => {
  it('answers the default (the first offered type) without an Accept header, or for */*', () => {
    expect(pick(undefined)).toBe('application/json');
    expect(pick('')).toBe('application/json');
    expect(pick('*/*')).toBe('application/json');
  });

  it('answers each YAML type a client names', () => {
    expect(pick('application/yaml')).toBe('application/yaml');
    expect(pick('application/x-yaml')).toBe('application/x-yaml');
    expect(pick('text/yaml')).toBe('text/yaml');
    expect(pick('TEXT/YAML; charset=utf-8')).toBe('text/yaml');
  });

  it('respects q-values', () => {
    expect(pick('application/yaml;q=0.5, application/json')).toBe('application/json');
    expect(pick('application/json;q=0.4, text/yaml;q=0.9')).toBe('text/yaml');
    expect(pick('application/yaml, */*;q=0.1')).toBe('application/yaml');
    expect(pick('application/json;q=0, */*')).toBe('application/yaml');
  });

  it('prefers a type named exactly over one matched by a wildcard of the same weight', () => {
    expect(pick('*/*, text/yaml')).toBe('text/yaml');
    expect(pick('application/*, text/yaml')).toBe('text/yaml');
    expect(pick('text/*')).toBe('text/yaml');
  });

  it('on a tie between named types, takes the one written first', () => {
    expect(pick('application/yaml, application/json')).toBe('application/yaml');
    expect(pick('application/json, application/yaml')).toBe('application/json');
  });

  it('answers the default when nothing offered is acceptable, or the header cannot be read', () => {
    expect(pick('text/html')).toBe('application/json');
    expect(pick('application/yaml;q=0')).toBe('application/json');
    expect(pick('yaml, /, */yaml')).toBe('application/json');
    expect(pick('application/yaml;q=2')).toBe('application/json');
  });
});
