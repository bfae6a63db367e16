import * as z from 'zod/mini';
import { CHUTE_NAME } from '../core/device/index.ts';
import { CHUTE_NAME_MESSAGE } from './params.ts';

/*
 * The request bodies of the chute endpoints, which handlers validate at run time (`validate`,
 * `validateQuery`): an install (and the query of an install from an image archive), a start or a
 * restart. Kept apart from schemas.ts (which re-exports them), so a handler's bundle holds only these.
 */

/** The name of an environment variable: not empty, without `=` or NUL, which an environment cannot hold. */
export const EnvironmentNameSchema = z.string().check(z.regex(/^[^=\0]+$/, { error: 'must be a variable name: not empty, without = or NUL' }));

/** Environment variables as a request body gives them: names (`EnvironmentName`) to strings. */
const EnvironmentStringsSchema = z.record(EnvironmentNameSchema, z.string({ error: 'must be a string' }), {
  error: (issue) => (issue.code === 'invalid_key' ? (issue.issues?.[0]?.message ?? 'is not a valid name') : 'must be a mapping of names to strings'),
});

/**
 * The optional body of POST …/start and …/restart: `environment`, the chute's new environment (it
 * replaces the record's for good, as ParaDrop does), values strings. Other fields are ignored; no body
 * at all is the same as `{}`.
 */
export const ChuteStartBodySchema = z.optional(
  z.object(
    {
      environment: z.optional(EnvironmentStringsSchema),
    },
    { error: 'must be a mapping, such as {"environment": {"NAME": "value"}}' },
  ),
);
export type ChuteStartBody = z.infer<typeof ChuteStartBodySchema>;

/** One path component of an image name: lower-case letters and digits, joined by `.`, `_`, `__` or dashes. */
const IMAGE_PATH_COMPONENT = '[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*';
/** A registry host (`registry.example.com`, `localhost:5000`): DNS labels, an optional port. */
const IMAGE_DOMAIN = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])(?:\\.(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9]))*(?::[0-9]+)?';
/** Docker's reference grammar, narrowed to `name[:tag]` or `name@sha256:<64 hex digits>`. */
const IMAGE_REFERENCE = new RegExp(
  `^(?<name>(?:${IMAGE_DOMAIN}/)?${IMAGE_PATH_COMPONENT}(?:/${IMAGE_PATH_COMPONENT})*)(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}|@sha256:[a-f0-9]{64})?$`,
);

/**
 * Whether a text is a Docker image reference chutebox accepts: `repo[:tag]` or `repo@sha256:<digest>`,
 * the repository optionally behind a registry host, its name at most 255 characters (Docker's limit).
 *
 * @example
 * isImageReference('busybox')                              // true
 * isImageReference('registry.local:5000/team/hello:1.2')   // true
 * isImageReference('hello@sha256:' + 'ab'.repeat(32))     // true
 * isImageReference('Hello:1')                              // false: repositories are lower case
 * isImageReference('hello:')                               // false
 */
export function isImageReference(text: string): boolean {
  const name = IMAGE_REFERENCE.exec(text)?.groups?.name;
  return name !== undefined && name.length <= 255;
}

/**
 * The query of an install from an image archive (`POST /api/v1/chutes?name=<chute>&version=<v>`):
 * `name`, a chute name (a missing one is told with the archive's own violations). Other parameters,
 * `version` among them, are taken as they are.
 */
export const ImageUploadQuerySchema = z.object({ name: z.optional(z.string().check(z.regex(CHUTE_NAME, { error: CHUTE_NAME_MESSAGE }))) });

/** `cpu_shares` below 2 is not a weight the engine takes (the kernel's minimum). */
export const MIN_CPU_SHARES = 2;

/**
 * The body of POST /api/v1/chutes/ (install), JSON or YAML, but for `config`, which
 * `checkChuteConfig` checks (its violations under `config.`):
 * - `name`: the chute's name (`CHUTE_NAME`), required;
 * - `image`: an image already in the engine (`isImageReference`), required;
 * - `version`: the installed version label, a string (a number is taken as its text);
 * - `environment`: variables of the chute record, values strings;
 * - `allocation`: `{ cpu_shares?: integer ≥ 2, prioritize_traffic?: boolean, … }`, other fields kept.
 * Other top-level fields are ignored.
 */
export const ChuteInstallBodySchema = z.object(
  {
    name: z
      .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a chute name') })
      .check(z.regex(CHUTE_NAME, { error: CHUTE_NAME_MESSAGE })),
    image: z
      .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be an image reference') })
      .check(z.refine(isImageReference, { error: 'must be an image reference: repo[:tag] or repo@sha256:<digest>, such as hello-world:1' })),
    version: z.optional(z.union([z.string(), z.number().check(z.refine(Number.isFinite))], { error: 'must be a version label (a string)' })),
    config: z.optional(z.unknown()),
    environment: z.optional(EnvironmentStringsSchema),
    allocation: z.optional(
      z.looseObject(
        {
          cpu_shares: z.optional(
            z
              .number({ error: `must be an integer of at least ${MIN_CPU_SHARES}` })
              .check(z.refine((n: number) => Number.isInteger(n) && n >= MIN_CPU_SHARES, { error: `must be an integer of at least ${MIN_CPU_SHARES}` })),
          ),
          prioritize_traffic: z.optional(z.boolean({ error: 'must be true or false' })),
        },
        { error: 'must be a mapping, such as {"cpu_shares": 512}' },
      ),
    ),
  },
  { error: 'must be a mapping, such as {"name": "hello", "image": "hello-world:1"}' },
);
export type ChuteInstallBody = z.infer<typeof ChuteInstallBodySchema>;
