import { describe, expect, it } from 'vitest';
import { encodeDocument, negotiate } from './answer.ts';
import { decodeDocumentBody } from './document.ts';

describe('answering a document as JSON or YAML', () => {
  it.each([
    [undefined, 'application/json'],
    ['', 'application/json'],
    ['*/*', 'application/json'],
    ['application/json', 'application/json'],
    ['application/yaml', 'application/yaml'],
    ['application/x-yaml', 'application/x-yaml'],
    ['text/yaml', 'text/yaml'],
    ['text/*', 'text/yaml'],
    ['application/*', 'application/json'],
    ['text/html, application/yaml;q=0.9, */*;q=0.8', 'application/yaml'],
    ['application/yaml;q=0.5, application/json;q=0.9', 'application/json'],
    ['application/yaml;q=0.9, application/json;q=0.5', 'application/yaml'],
    ['application/json;q=0, */*', 'application/yaml'],
    ['application/yaml;q=0, */*', 'application/json'],
    ['text/html', 'application/json'],
    ['application/yaml;q=0', 'application/json'],
  ])('Accept: %s → %s', (accept, type) => {
    expect(negotiate(accept)).toBe(type);
  });

  it('writes YAML that reads back as the same value, quoting strings a YAML 1.1 reader would take for something else', () => {
    const value = {
      environment: { DEBUG: 'yes', MODE: '0755', AT: '12:30', DAY: '2015-07-30', N: 'no', PORT: 8080, ON: true, EMPTY: null },
      net: { wlan: { ssid: 'lab: 1', dns: ['::1'] } },
    };
    const yaml = encodeDocument(value, 'application/yaml');
    expect(yaml.contentType).toBe('application/yaml');
    expect(yaml.body).toContain('DEBUG: "yes"');
    expect(decodeDocumentBody(yaml.contentType, yaml.body)).toEqual(value);
    const json = encodeDocument(value, 'application/json');
    expect(json).toEqual({ body: JSON.stringify(value), contentType: 'application/json' });
    expect(decodeDocumentBody(json.contentType, json.body)).toEqual(value);
  });

  it('says the charset of text/yaml', () => {
    expect(encodeDocument({ a: 1 }, 'text/yaml')).toEqual({ body: 'a: 1\n', contentType: 'text/yaml; charset=utf-8' });
    expect(encodeDocument({ a: 1 }, 'application/x-yaml').contentType).toBe('application/x-yaml');
  });
});
