import { describe, expect, it } from 'vitest';
import { HttpProblem } from '../problem.ts';
import { decodeDocumentBody } from './document.ts';
import { MAX_DEPTH } from './depth.ts';
import { DOCUMENT_MEDIA_TYPES } from './media-types.ts';

/** What decodeDocumentBody threw. */
function rejection(contentType: string | undefined, text: string, limit?: number): HttpProblem {
  try {
    decodeDocumentBody(contentType, text, limit);
  } catch (error) {
    if (error instanceof HttpProblem) return error;
    throw error;
  }
  throw new Error('the body was accepted');
}

describe('a document body (chute configuration) in JSON or YAML', () => {
  it.each([
    ['application/json', '{"web": {"port": 8000}, "net": {}}'],
    ['application/json; charset=utf-8', '{"web": {"port": 8000}, "net": {}}'],
    ['application/vnd.chutebox+json', '{"web": {"port": 8000}, "net": {}}'],
    ['application/yaml', 'web:\n  port: 8000\nnet: {}\n'],
    ['application/x-yaml', 'web:\n  port: 8000\nnet: {}\n'],
    ['text/yaml', 'web:\n  port: 8000\nnet: {}\n'],
    ['Text/YAML; charset=UTF-8', 'web: {port: 8000}\nnet: {}\n'],
  ])('is read as %s', (contentType, text) => {
    expect(decodeDocumentBody(contentType, text)).toEqual({ web: { port: 8000 }, net: {} });
  });

  it('reads YAML as YAML 1.1, the way ParaDrop read a service.yaml, but keeps dates and times as written', () => {
    const text = ['hidden: yes', 'isolate: off', 'hex: 0x1F', 'empty:', 'date: 2015-07-30', 'time: 12:30', 'port: "8080"', 'quoted: "yes"', ''].join('\n');
    expect(decodeDocumentBody('application/yaml', text)).toEqual({
      hidden: true,
      isolate: false,
      hex: 31,
      empty: null,
      date: '2015-07-30',
      time: '12:30',
      port: '8080',
      quoted: 'yes',
    });
  });

  it('expands anchors, aliases and merge keys in moderation', () => {
    const text =
      'ap: &ap\n  type: wifi\n  dns: &dns [8.8.8.8]\nnet:\n  wlan:\n    <<: *ap\n    intfName: wlan0\n  lan: {type: vlan, intfName: vlan0, vlan_id: 5, dns: *dns}\n';
    expect(decodeDocumentBody('application/yaml', text)).toMatchObject({
      net: { wlan: { type: 'wifi', dns: ['8.8.8.8'], intfName: 'wlan0' }, lan: { dns: ['8.8.8.8'] } },
    });
  });

  it('answers 400 for a YAML alias bomb (billion laughs) instead of expanding it', () => {
    const lines = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (const [name, previous] of [
      ['b', 'a'],
      ['c', 'b'],
      ['d', 'c'],
      ['e', 'd'],
      ['f', 'e'],
      ['g', 'f'],
    ]) {
      lines.push(`${name}: &${name} [${Array(10).fill(`*${previous}`).join(', ')}]`);
    }
    const problem = rejection('application/yaml', lines.join('\n'));
    expect(problem.status).toBe(400);
    expect(problem.message).toMatch(/^the request body is not valid YAML: Excessive alias count/);
  });

  it.each([
    ['JSON with an unexpected token', 'application/json', '{\n  "web": {\n    "port": x\n  }\n}', 'JSON', 3, 13],
    ['JSON with a missing comma', 'application/json', '{\n  "a": 1\n  "b": 2\n}', 'JSON', 3, 3],
    ['JSON cut short', 'application/json', '{"web": {"port": 8000}', 'JSON', 1, 23],
    ['YAML with a bad indentation', 'application/yaml', 'web:\n  port: 8000\n bad: 1\n', 'YAML', 3, 1],
    ['YAML with a mapping inside a compact mapping', 'application/yaml', 'net:\n  wlan: type: wifi\n', 'YAML', 2, 9],
    ['YAML with a key given twice', 'text/yaml', 'web:\n  port: 1\nweb:\n  port: 2\n', 'YAML', 3, 1],
  ])('answers 400 naming the body, the line and the column for %s', (_, contentType, text, format, line, column) => {
    const problem = rejection(contentType, text);
    expect(problem.status).toBe(400);
    expect(problem.message).toMatch(new RegExp(`^the request body is not valid ${format}: .+ at line ${line}, column ${column}$`));
    expect(problem.extensions).toEqual({ line, column });
    expect(problem.errors).toEqual([{ path: 'body', message: problem.message.replace(/^the request body /, '') }]);
  });

  it('answers 400 naming the body for a YAML body with several documents or an alias without its anchor', () => {
    expect(rejection('application/yaml', 'web: {port: 1}\n---\nweb: {port: 2}\n').message).toMatch(/more than one document at line 2, column 1$/);
    const alias = rejection('application/yaml', 'dns: *servers\n');
    expect(alias.message).toMatch(/Unresolved alias/);
    expect(alias.errors).toEqual([{ path: 'body', message: expect.stringMatching(/^is not valid YAML: Unresolved alias/) }]);
  });

  it.each([
    ['JSON', 'application/json', 100_000, (n: number) => `{"a": ${'['.repeat(n)}${']'.repeat(n)}}`],
    ['YAML flow lists', 'application/yaml', 100_000, (n: number) => `a: ${'['.repeat(n)}${']'.repeat(n)}`],
    ['YAML flow mappings', 'application/yaml', 100_000, (n: number) => `${'{a: '.repeat(n + 1)}1${'}'.repeat(n + 1)}`],
    ['YAML compact block lists', 'application/yaml', 100_000, (n: number) => `a:\n  ${'- '.repeat(n)}x`],
    ['YAML block mappings', 'application/yaml', 1_000, (n: number) => `${Array.from({ length: n + 1 }, (_, i) => `${' '.repeat(i)}k:`).join('\n')} 1`],
  ])(`answers 400 for %s (%s) nested deeper than ${MAX_DEPTH}, however deep, and reads them up to that`, (_, contentType, deepest, nested) => {
    expect(Object.keys(decodeDocumentBody(contentType, nested(MAX_DEPTH - 1)))).toHaveLength(1);
    for (const depth of [MAX_DEPTH, deepest]) {
      const problem = rejection(contentType, nested(depth));
      expect(problem.status).toBe(400);
      expect(problem.message).toBe(`the request body nests mappings and lists more than ${MAX_DEPTH} deep`);
      expect(problem.errors).toEqual([{ path: 'body', message: `nests mappings and lists more than ${MAX_DEPTH} deep` }]);
    }
  });

  it(`answers 400 for YAML that aliases nest deeper than ${MAX_DEPTH}`, () => {
    const lines = [`a0: &a0 ${'['.repeat(40)}${']'.repeat(40)}`];
    for (let i = 1; i < 50; i++) lines.push(`a${i}: &a${i} ${'['.repeat(40)}*a${i - 1}${']'.repeat(40)}`);
    expect(rejection('application/yaml', lines.join('\n')).message).toMatch(/more than 64 deep/);
  });

  it.each([
    ['a YAML list', 'application/yaml', '- web\n- net\n'],
    ['a YAML scalar', 'application/yaml', 'hello\n'],
    ['an empty YAML document', 'application/yaml', '# nothing yet\n'],
    ['a JSON array', 'application/json', '[{"web": {}}]'],
    ['JSON null', 'application/json', 'null'],
    ['an empty body', undefined, ''],
  ])('answers 422 naming the body for %s', (_, contentType, text) => {
    const problem = rejection(contentType, text);
    expect(problem.status).toBe(422);
    expect(problem.errors).toEqual([{ path: 'body', message: 'must be a mapping' }]);
  });

  it.each([['text/plain'], ['application/x-www-form-urlencoded'], [undefined]])(
    'answers 415 listing the accepted types, naming the content type, for %s',
    (contentType) => {
      const problem = rejection(contentType, 'web: {port: 80}');
      expect(problem.status).toBe(415);
      expect(problem.message).toMatch(/must be one of application\/json, application\/yaml, application\/x-yaml, text\/yaml, not /);
      expect(problem.extensions).toEqual({ accepted: [...DOCUMENT_MEDIA_TYPES] });
      expect(problem.errors).toEqual([{ path: 'headers.content-type', message: problem.message.replace(/^the request body /, '') }]);
    },
  );

  it('answers 413 for a body over the limit, counted in bytes', () => {
    expect(rejection('application/json', '{"ssid": "ééé"}', 15).status).toBe(413);
    expect(decodeDocumentBody('application/json', '{"ssid": "ééé"}', 18)).toEqual({ ssid: 'ééé' });
  });
});
