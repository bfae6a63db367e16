import { readFileSync } from 'node:fs';

/*
 * Real public keys (fixtures/ssh-keys/, see its README) and the SSH wire format, to make keys that
 * are wrong in exactly one way.
 */

/** The key files of fixtures/ssh-keys/, by name without `.pub`. */
export type KeyName = 'ed25519' | 'rsa-2048' | 'rsa-1024' | 'ecdsa-256' | 'ecdsa-384' | 'ecdsa-521' | 'dsa' | 'sk-ed25519' | 'sk-ecdsa-256';

/**
 * A public key line of fixtures/ssh-keys/, without its newline.
 *
 * @example
 * sshKey('ed25519') // 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIErzfrvK75/Fl4oVaLVr/hQEZpVW34aj+zMgWqsbmHY+ alice@laptop'
 */
export function sshKey(name: KeyName): string {
  return readFileSync(new URL(`../../fixtures/ssh-keys/${name}.pub`, import.meta.url), 'utf8').trimEnd();
}

/** The fields of a key line's payload (each an SSH `string`), decoded. */
export function wireFields(line: string): Buffer[] {
  const payload = Buffer.from(line.split(' ')[1]!, 'base64');
  const fields: Buffer[] = [];
  for (let at = 0; at < payload.length; ) {
    const length = payload.readUInt32BE(at);
    fields.push(payload.subarray(at + 4, at + 4 + length));
    at += 4 + length;
  }
  return fields;
}

/**
 * A key line `<type> <base64 of the fields as SSH strings> <comment>`: the way to write a key with a
 * chosen defect.
 *
 * @example
 * keyLine('ssh-ed25519', ['ssh-rsa', wireFields(sshKey('ed25519'))[1]!]) // a payload that says ssh-rsa
 */
export function keyLine(type: string, fields: (string | Uint8Array)[], comment = 'crafted@test'): string {
  const parts = fields.map((field) => {
    const bytes = typeof field === 'string' ? Buffer.from(field) : Buffer.from(field);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(bytes.length);
    return Buffer.concat([length, bytes]);
  });
  return `${type} ${Buffer.concat(parts).toString('base64')} ${comment}`;
}

/**
 * The `n`th of many distinct ed25519 key lines (any 32 bytes are a key the device takes), commented `key-<n>@<tag>`.
 *
 * @example
 * numberedKey(7, 'crash') // 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAAAAAda… key-7@crash'
 */
export function numberedKey(n: number, tag: string): string {
  const bytes = Buffer.alloc(32, 0x5a);
  bytes.writeUInt32BE(n);
  return keyLine('ssh-ed25519', ['ssh-ed25519', bytes], `key-${n}@${tag}`);
}

/**
 * An ECDSA point (`0x04 ‖ X ‖ Y`) with the last bit of its Y flipped: the same X with a Y that no
 * point of the curve has with it, so a point off the curve.
 *
 * @example
 * keyLine('ecdsa-sha2-nistp256', ['ecdsa-sha2-nistp256', 'nistp256', offCurve(wireFields(sshKey('ecdsa-256'))[2]!)])
 */
export function offCurve(point: Uint8Array): Buffer {
  return Buffer.concat([point.subarray(0, -1), Buffer.from([point.at(-1)! ^ 1])]);
}
