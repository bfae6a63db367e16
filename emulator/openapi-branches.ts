// The unions of the OpenAPI document rewritten so that a validator reports the errors of the branch a
// body chose, as the handlers do, rather than of every branch. See `choosingBranches`.

type Json = Record<string, unknown>;

/** Where a `$ref` of the document leads (`#/components/schemas/NetEntry`); undefined for any other. */
export type Resolve = (ref: string) => unknown;

/** The fields a branch fixes to one value (`type: wifi`), and whether the branch requires each. */
type Consts = Map<string, { value: unknown; required: boolean }>;

/**
 * A JSON Schema (any part of the document) with each `oneOf` or `anyOf` that a body chooses a branch
 * of rewritten as an `if`/`then`/`else` chain, which takes what the union takes:
 * - **by a field**: every branch fixes one field (`type`, `mode`) to a value of its own (`const`), as
 *   zod writes a discriminated union. The chain tries each value; a body that gives none of them gets
 *   the rule that the field be one of them (`must be one of "wifi", "vlan"`, or `is required`).
 * - **by its shape**: a closed branch (`additionalProperties: false`) is chosen by a body with its
 *   required fields of their types and no other field, the one open branch by any other body, as
 *   PUT /api/v1/config/hostconfig tells `{"config": {...}}` from the configuration itself.
 * Other unions (a value or null) stay as they are. ajv then reports the chosen branch's errors and an
 * `if` error, which the validator leaves out.
 *
 * @example
 * choosingBranches({ oneOf: [{ $ref: '#/components/schemas/Ap' }, { $ref: '#/components/schemas/Vlan' }] }, resolve)
 * // { if: { properties: { type: { const: 'wifi' } }, required: ['type'] }, then: { $ref: '…/Ap' },
 * //   else: { if: { properties: { type: { const: 'vlan' } }, required: ['type'] }, then: { $ref: '…/Vlan' },
 * //           else: { properties: { type: { enum: ['wifi', 'vlan'] } }, required: ['type'] } } }
 */
export function choosingBranches(schema: unknown, resolve: Resolve): unknown {
  if (Array.isArray(schema)) return schema.map((item) => choosingBranches(item, resolve));
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) out[key] = choosingBranches(value, resolve);
  for (const keyword of ['oneOf', 'anyOf'] as const) {
    const branches = (schema as Json)[keyword];
    if (!Array.isArray(branches)) continue;
    const chain = byField(branches, resolve) ?? byShape(branches, resolve);
    if (chain === undefined) continue;
    const rest = Object.fromEntries(Object.entries(out).filter(([key]) => key !== keyword));
    return { ...rest, ...chain(out[keyword] as unknown[]) };
  }
  return out;
}

/** A chain of `if`/`then`/`else` over the (rewritten) branches. */
type Chain = (branches: unknown[]) => Json;

/** The chain of a union every branch of which fixes one field to a value of its own; undefined for any other union. */
function byField(branches: unknown[], resolve: Resolve): Chain | undefined {
  const consts = branches.map((branch) => constsOf(branch, resolve));
  const field = [...(consts[0]?.keys() ?? [])].find((name) => {
    const values = consts.map((fixed) => fixed.get(name));
    if (values.some((fixed) => fixed === undefined)) return false;
    const distinct = new Set(values.map((fixed) => JSON.stringify(fixed!.value))).size === values.length;
    // Two branches that take a body without the field would both take it: not a choice.
    return distinct && values.filter((fixed) => !fixed!.required).length <= 1;
  });
  if (field === undefined || branches.length < 2) return undefined;
  const fixed = consts.map((of) => of.get(field)!);
  const choices = fixed.map(({ value, required }) => ({ properties: { [field]: { const: value } }, required: required ? [field] : [] }));
  const none = { properties: { [field]: { enum: fixed.map(({ value }) => value) } }, required: fixed.every(({ required }) => required) ? [field] : [] };
  return (rewritten) => chained(choices, rewritten, none);
}

/** The chain of a union of closed branches and one open one that no body of a closed branch's shape fits; undefined for any other union. */
function byShape(branches: unknown[], resolve: Resolve): Chain | undefined {
  const resolved = branches.map((branch) => objectSchema(branch, resolve));
  const closed = resolved.flatMap((schema, i) => (schema?.additionalProperties === false && required(schema).length > 0 ? [i] : []));
  const open = resolved.flatMap((_, i) => (closed.includes(i) ? [] : [i]));
  if (closed.length === 0 || open.length !== 1) return undefined;
  const openRequired = required(resolved[open[0]!]);
  const fields = closed.map((i) => Object.keys(properties(resolved[i])));
  // A body of a closed branch's shape must be one the open branch refuses: it lacks a field the open branch requires.
  if (!fields.every((names) => openRequired.some((name) => !names.includes(name)))) return undefined;
  const choices = closed.map((i) => {
    const schema = resolved[i]!;
    const types = Object.entries(properties(schema)).map(([name, field]) => [name, typeOf(field, resolve)] as const);
    return { type: 'object', required: required(schema), additionalProperties: false, properties: Object.fromEntries(types) };
  });
  return (rewritten) => chained(choices, [...closed.map((i) => rewritten[i]), rewritten[open[0]!]], undefined);
}

/**
 * `if choices[0] then branches[0] else if …`, ending in `last` (or the branch after the choices).
 * Written as entries: JSON Schema's `then` keyword would make an object literal a thenable to lint.
 */
function chained(choices: Json[], branches: unknown[], last: Json | undefined): Json {
  let tail: unknown = last ?? branches[choices.length];
  for (let i = choices.length - 1; i >= 0; i--) {
    tail = Object.fromEntries([
      ['if', choices[i]],
      ['then', branches[i]],
      ['else', tail],
    ]);
  }
  return tail as Json;
}

/** The fields a branch fixes: its own `const` properties, or those every branch of its own union fixes alike. */
function constsOf(branch: unknown, resolve: Resolve): Consts {
  const schema = followed(branch, resolve);
  if (schema === undefined) return new Map();
  const union = schema.oneOf ?? schema.anyOf;
  if (Array.isArray(union)) {
    const [first, ...others] = union.map((inner) => constsOf(inner, resolve));
    const common: Consts = new Map();
    for (const [name, fixed] of first ?? []) {
      const alike = others.map((other) => other.get(name));
      if (alike.every((other) => other !== undefined && JSON.stringify(other.value) === JSON.stringify(fixed.value))) {
        common.set(name, { value: fixed.value, required: fixed.required && alike.every((other) => other!.required) });
      }
    }
    return common;
  }
  const fixed: Consts = new Map();
  for (const [name, field] of Object.entries(properties(schema))) {
    const value = followed(field, resolve)?.const;
    if (value !== undefined) fixed.set(name, { value, required: required(schema).includes(name) });
  }
  return fixed;
}

/** A schema with its `$ref`s followed; undefined when it is not an object schema. */
function followed(schema: unknown, resolve: Resolve): Json | undefined {
  let current = schema;
  for (let hops = 0; hops < 16 && typeof current === 'object' && current !== null && typeof (current as Json).$ref === 'string'; hops++) {
    current = resolve((current as Json).$ref as string);
  }
  return typeof current === 'object' && current !== null && !Array.isArray(current) ? (current as Json) : undefined;
}

/** A branch as an object schema (`type: object` or `properties`), its `$ref`s followed; undefined otherwise. */
function objectSchema(branch: unknown, resolve: Resolve): Json | undefined {
  const schema = followed(branch, resolve);
  return schema !== undefined && (schema.type === 'object' || schema.properties !== undefined) ? schema : undefined;
}

/** The JSON type a field must have, as a schema of that type alone (`{}` when it says none). */
function typeOf(field: unknown, resolve: Resolve): Json {
  const type = followed(field, resolve)?.type;
  return type === undefined ? {} : { type };
}

function properties(schema: Json | undefined): Json {
  return (schema?.properties ?? {}) as Json;
}

function required(schema: Json | undefined): string[] {
  return (schema?.required ?? []) as string[];
}
