import * as z from 'zod/mini';

/*
 * The request bodies of the chute endpoints, which handlers validate at run time (`validate`):
 * kept apart from schemas.ts (which re-exports them), so a handler's bundle holds only these.
 */

/** Bytes of text in UTF-8, the unit of the 32-byte SSID limit. */
function utf8Length(text: string): number {
  return new TextEncoder().encode(text).length;
}

/**
 * The body of PUT …/ssid. An SSID is 1 to 32 bytes; chutebox takes it as UTF-8 text without control
 * characters (C0, DEL, C1). Other fields, such as a `bssid` sent back from a GET, are ignored.
 */
export const SsidUpdate = z.object({
  ssid: z.string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') }).check(
    z.minLength(1, { error: 'must not be empty' }),
    z.refine((ssid: string) => utf8Length(ssid) <= 32, { error: 'must be at most 32 bytes in UTF-8' }),
    z.regex(/^[^\u0000-\u001f\u007f-\u009f]*$/, { error: 'must not contain control characters' }),
  ),
});
export type SsidUpdate = z.infer<typeof SsidUpdate>;

/** The name of an environment variable: not empty, without `=` or NUL, which an environment cannot hold. */
export const EnvironmentName = z.string().check(z.regex(/^[^=\0]+$/, { error: 'must be a variable name: not empty, without = or NUL' }));

/**
 * The optional body of POST …/start and …/restart: `environment`, variables added to the configured
 * ones for this start, values strings. Other fields are ignored; no body at all is the same as `{}`.
 */
export const ChuteStartBody = z.optional(
  z.object(
    {
      environment: z.optional(
        z.record(EnvironmentName, z.string({ error: 'must be a string' }), {
          error: (issue) => (issue.code === 'invalid_key' ? (issue.issues?.[0]?.message ?? 'is not a valid name') : 'must be a mapping of names to strings'),
        }),
      ),
    },
    { error: 'must be a mapping, such as {"environment": {"NAME": "value"}}' },
  ),
);
export type ChuteStartBody = z.infer<typeof ChuteStartBody>;
