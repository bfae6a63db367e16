import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { HttpProblem } from '../../../functions/core/problem.ts';
import { useDynalite } from '../../../test/support/dynalite.ts';
import { dynamoDeviceStore, MAX_DOCUMENT_BYTES } from './device-store.ts';

const db = useDynalite();

/** A store over a table of its own. */
async function freshStore(name: string) {
  return dynamoDeviceStore({ table: await db().table(name), endpoint: db().endpoint });
}

describe('the fleet store in DynamoDB', () => {
  it('holds nothing for a device never written, and what was written once it is, at version 1', async () => {
    const store = await freshStore('untouched');
    expect(await store.read('router-3')).toBeNull();
    expect(await store.write('router-3', { networks: [{ ssid: 'lab' }] }, null)).toBe(true);
    expect(await store.read('router-3')).toEqual({ version: 1, document: { networks: [{ ssid: 'lab' }] } });
    expect(await store.read('router-4')).toBeNull();
  });

  it('refuses the second of two writes that read the same version, keeping the first', async () => {
    const store = await freshStore('conflicts');
    expect(await store.write('router-0', { n: 1 }, null)).toBe(true);
    expect(await store.write('router-0', { n: 'again from nothing' }, null)).toBe(false);
    const [first, second] = await Promise.all([store.write('router-0', { n: 2 }, 1), store.write('router-0', { n: 3 }, 1)]);
    expect([first, second].sort()).toEqual([false, true]);
    const now = await store.read('router-0');
    expect(now?.version).toBe(2);
    expect(now?.document).toEqual(first ? { n: 2 } : { n: 3 });
    expect(await store.write('router-0', { n: 4 }, 2)).toBe(true);
    expect(await store.read('router-0')).toEqual({ version: 3, document: { n: 4 } });
  });

  it('refuses a state larger than an item holds with a 507, keeping what was stored', async () => {
    const store = await freshStore('bounded');
    await store.write('router-1', { small: true }, null);
    // Random bytes do not compress: more than an item holds once gzipped.
    const large = { noise: randomBytes(MAX_DOCUMENT_BYTES).toString('base64') };
    const refused = await store.write('router-1', large, 1).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(HttpProblem);
    expect((refused as HttpProblem).status).toBe(507);
    expect((refused as HttpProblem).message).toMatch(/^router-1's state would take \d+ bytes gzipped/);
    expect(await store.read('router-1')).toEqual({ version: 1, document: { small: true } });
  });

  it('keeps an apitoken beside the document, out of it, and drops it with a write that gives none', async () => {
    const store = await freshStore('apitokens');
    expect(await store.write('router-5', { provisioning: { routerId: 'lab' } }, null, 'tok-secret')).toBe(true);
    expect(await store.read('router-5')).toEqual({ version: 1, document: { provisioning: { routerId: 'lab' } }, apitoken: 'tok-secret' });
    expect(await store.readMany(['router-5'])).toEqual([{ version: 1, document: { provisioning: { routerId: 'lab' } }, apitoken: 'tok-secret' }]);
    expect(await store.write('router-5', { provisioning: null }, 1)).toBe(true);
    expect(await store.read('router-5')).toEqual({ version: 2, document: { provisioning: null } });
  });

  it('reads many devices at once, in the order asked, beyond one batch of 100', async () => {
    const store = await freshStore('many');
    const ids = Array.from({ length: 250 }, (_, index) => `router-${index}`);
    await Promise.all(ids.filter((_, index) => index % 3 === 0).map((id) => store.write(id, { id }, null)));
    const read = await store.readMany(ids);
    expect(read).toHaveLength(250);
    expect(read).toEqual(ids.map((id, index) => (index % 3 === 0 ? { version: 1, document: { id } } : null)));
  });
});
