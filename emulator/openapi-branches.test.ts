import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { choosingBranches } from './openapi-branches.ts';
import { inputErrors } from './openapi-validator.ts';

/** Schemas as the document writes a chute network entry and PUT …/hostconfig's body (functions/chutes/chute-config.ts, host-config-body.ts). */
const SCHEMAS: Record<string, unknown> = {
  Ap: {
    type: 'object',
    properties: {
      type: { type: 'string', const: 'wifi' },
      mode: { type: 'string', const: 'ap' },
      intfName: { type: 'string', pattern: '^[a-z]+$' },
      key: { type: 'string', minLength: 8 },
    },
    required: ['type', 'intfName'],
  },
  Monitor: {
    type: 'object',
    properties: { type: { type: 'string', const: 'wifi' }, mode: { type: 'string', const: 'monitor' }, intfName: { type: 'string' } },
    required: ['type', 'mode', 'intfName'],
  },
  Vlan: {
    type: 'object',
    properties: { type: { type: 'string', const: 'vlan' }, intfName: { type: 'string' }, vlan_id: { type: 'integer' } },
    required: ['type', 'intfName', 'vlan_id'],
  },
  Entry: { oneOf: [{ oneOf: [{ $ref: '#/components/schemas/Ap' }, { $ref: '#/components/schemas/Monitor' }] }, { $ref: '#/components/schemas/Vlan' }] },
  Config: { type: 'object', properties: { firewall: { type: 'object' }, lan: { type: 'object' } }, required: ['firewall', 'lan'] },
  Body: {
    anyOf: [
      { $ref: '#/components/schemas/Config' },
      { type: 'object', properties: { config: { $ref: '#/components/schemas/Config' } }, required: ['config'], additionalProperties: false },
    ],
  },
};

const resolve = (ref: string) => SCHEMAS[ref.replace('#/components/schemas/', '')];

/** A validator of the component `name`, its unions rewritten or (`rewrite` false) as the document has them. */
function validatorOf(name: string, rewrite = true) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  const defs = rewrite ? choosingBranches(SCHEMAS, resolve) : SCHEMAS;
  ajv.addSchema({ $id: 'doc', $defs: JSON.parse(JSON.stringify(defs).replaceAll('"#/components/schemas/', '"#/$defs/')) });
  return ajv.compile({ $ref: `doc#/$defs/${name}` });
}

/** The errors of a value as the validator names them (`inputErrors`), from `body`. */
function errorsOf(name: string, value: unknown) {
  const validate = validatorOf(name);
  return validate(value) ? [] : inputErrors(validate.errors ?? [], 'body');
}

describe('choosingBranches: a union whose branches fix a field (type, then mode)', () => {
  it("reports the errors of the branch the body chose, and none of another branch's", () => {
    expect(errorsOf('Entry', { type: 'wifi', intfName: 'BAD', key: 'short' })).toEqual([
      { path: 'body.intfName', message: 'must match pattern "^[a-z]+$"' },
      { path: 'body.key', message: 'must NOT have fewer than 8 characters' },
    ]);
    expect(errorsOf('Entry', { type: 'wifi', mode: 'monitor' })).toEqual([{ path: 'body.intfName', message: 'is required' }]);
    expect(errorsOf('Entry', { type: 'vlan', intfName: 'v' })).toEqual([{ path: 'body.vlan_id', message: 'is required' }]);
  });

  it('says which values the field may take when the body gives none of them, or that it is required', () => {
    expect(errorsOf('Entry', { type: 'mesh', intfName: 'm' })).toEqual([{ path: 'body.type', message: 'must be one of "wifi", "vlan"' }]);
    expect(errorsOf('Entry', { type: 'wifi', mode: 'mesh', intfName: 'w' })).toEqual([{ path: 'body.mode', message: 'must be one of "ap", "monitor"' }]);
    expect(errorsOf('Entry', { intfName: 'w' })).toEqual([{ path: 'body.type', message: 'is required' }]);
  });

  it('takes exactly what the union takes', () => {
    const [chain, union] = [validatorOf('Entry'), validatorOf('Entry', false)];
    for (const value of [
      { type: 'wifi', intfName: 'w' },
      { type: 'wifi', mode: 'ap', intfName: 'w' },
      { type: 'wifi', mode: 'monitor', intfName: 'W' },
      { type: 'vlan', intfName: 'v', vlan_id: 5 },
      { type: 'vlan', intfName: 'v' },
      { type: 'wifi', mode: 'monitor' },
      { type: 'mesh' },
      {},
      'wifi',
      null,
    ]) {
      expect(chain(value), JSON.stringify(value)).toBe(union(value));
    }
  });
});

describe('choosingBranches: a union of a closed branch and an open one (PUT …/hostconfig)', () => {
  it("reports the wrapper's errors for a body that is only a mapping named config, the configuration's for any other", () => {
    expect(errorsOf('Body', { config: { firewall: {} } })).toEqual([{ path: 'body.config.lan', message: 'is required' }]);
    expect(errorsOf('Body', { firewall: {} })).toEqual([{ path: 'body.lan', message: 'is required' }]);
    expect(errorsOf('Body', { config: 5 })).toEqual([
      { path: 'body.firewall', message: 'is required' },
      { path: 'body.lan', message: 'is required' },
    ]);
  });

  it('takes exactly what the union takes', () => {
    const [chain, union] = [validatorOf('Body'), validatorOf('Body', false)];
    for (const value of [
      { config: { firewall: {}, lan: {} } },
      { firewall: {}, lan: {} },
      { config: {} },
      { config: { firewall: {}, lan: {} }, x: 1 },
      {},
      [],
    ]) {
      expect(chain(value), JSON.stringify(value)).toBe(union(value));
    }
  });
});

describe('choosingBranches: other unions', () => {
  it('leaves a value-or-null union, and one where two branches take a body without the field, as they are', () => {
    const nullable = { anyOf: [{ type: 'string' }, { type: 'null' }] };
    expect(choosingBranches(nullable, resolve)).toEqual(nullable);
    const ambiguous = {
      oneOf: [
        { type: 'object', properties: { kind: { const: 'a' } } },
        { type: 'object', properties: { kind: { const: 'b' } } },
      ],
    };
    expect(choosingBranches(ambiguous, resolve)).toEqual(ambiguous);
  });
});
