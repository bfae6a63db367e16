import { describe, expect, it } from 'vitest';
import { infoOf } from '../../test/support/info-devices.ts';
import * as features from './features.get.ts';

describe('GET /api/v1/info/features', () => {
  it('responds with 200 and hostapd-control and docker when a container engine answers', async () => {
    expect(await infoOf(features, { containers: [] })).toEqual(['hostapd-control', 'docker']);
  });

  it('responds with hostapd-control alone on a device without a container engine', async () => {
    expect(await infoOf(features, { containers: null })).toEqual(['hostapd-control']);
  });
});
