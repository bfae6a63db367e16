import { describe, expect, it } from 'vitest';
import { chuteStateOfServices, taggedServices } from './services.ts';

describe("chuteStateOfServices: a chute's state from its services' states", () => {
  it('is running only when every service runs', () => {
    expect(chuteStateOfServices({ web: 'running', db: 'running' })).toBe('running');
    expect(chuteStateOfServices({ main: 'stopped' })).toBe('stopped');
  });

  it('is the state of the service furthest from running otherwise', () => {
    expect(chuteStateOfServices({ web: 'running', db: 'stopped' })).toBe('stopped');
    expect(chuteStateOfServices({ web: 'stopped', db: 'failed' })).toBe('failed');
    expect(chuteStateOfServices({ web: 'restarting', db: 'missing' })).toBe('missing');
    expect(chuteStateOfServices({ web: 'installing', db: 'stopping' })).toBe('stopping');
  });
});

describe('taggedServices', () => {
  it('tags the main service as the chute, each other built one with its name after, and keeps an engine image', () => {
    const services = {
      main: 'web',
      services: {
        web: { type: 'normal', image: null, source: 'web' },
        db: { type: 'image', image: 'busybox:1' },
        ui: { type: 'light', image: null, use: 'node' },
      },
    } as const;
    expect(taggedServices(structuredClone(services) as never, 'chute-pair:2').services).toMatchObject({
      web: { image: 'chute-pair:2' },
      db: { image: 'busybox:1' },
      ui: { image: 'chute-pair:2-ui' },
    });
  });
});
