import * as z from 'zod/mini';
import { publicKeyProblem } from './ssh-key.ts';

/*
 * The body of POST /api/v1/config/sshKeys/<user>, which its handler validates at run time
 * (`validateAsync`): kept apart from schemas.ts (which re-exports it), so that handler's bundle holds only this.
 */

/**
 * The body of POST /api/v1/config/sshKeys/<user>: `{ "key": "<type> <base64> [comment]" }`, one
 * public key as `ssh-keygen` writes it into a `.pub` file, checked by `publicKeyProblem`. Other fields
 * are ignored. The check awaits Web Crypto: parse with `safeParseAsync` (`validateAsync`).
 *
 * @example
 * { "key": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIErzfrvK75/Fl4oVaLVr/hQEZpVW34aj+zMgWqsbmHY+ alice@laptop" }
 */
export const SshKeyBodySchema = z.object(
  {
    key: z.string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string: one public key line') }).check(
      z.superRefine(async (text: string, context) => {
        const problem = await publicKeyProblem(text);
        if (problem !== null) context.issues.push({ code: 'custom', message: problem, input: text });
      }),
    ),
  },
  { error: 'must be a mapping, such as {"key": "ssh-ed25519 AAAA… alice@laptop"}' },
);
export type SshKeyBody = z.infer<typeof SshKeyBodySchema>;
