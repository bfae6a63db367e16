import { describe, expect, it } from 'vitest';
import type { InputError } from '../core/problem.ts';
import { chooseRadio, radioOffers, type RadioHolders } from './radio-choice.ts';

const holders = (): RadioHolders => ({ accessPoints: new Map(), monitors: new Map() });

describe('radioOffers', () => {
  it("offers the host configuration's radios the device has, with the band of their settings and the host's networks on them", () => {
    const config = {
      wifi: [
        { id: 'pci-wifi-0', channel: 36, hwmode: '11a' as const },
        { id: 'pci-wifi-1', channel: 'auto' as const, hwmode: '11n' as const },
        { id: 'usb-wifi-0', channel: 6 },
      ],
      'wifi-interfaces': [{ device: 'pci-wifi-0', ssid: 'Home' }],
    };
    expect(radioOffers(config, ['pci-wifi-0', 'pci-wifi-1'])).toEqual([
      { id: 'pci-wifi-0', band: '5g', hostNetworks: ['Home'] },
      { id: 'pci-wifi-1', band: null, hostNetworks: [] },
    ]);
  });
});

describe('chooseRadio', () => {
  const offers = [
    { id: 'pci-wifi-0', band: '5g' as const, hostNetworks: ['Home'] },
    { id: 'pci-wifi-1', band: '2g' as const, hostNetworks: [] },
  ];

  it('puts an access point on the first radio whose band fits requests.hwmode, and any radio without one', () => {
    const errors: InputError[] = [];
    expect(chooseRadio('wifi', { type: 'wifi', requests: { hwmode: '11g' } }, offers, holders(), errors)).toBe('pci-wifi-1');
    expect(chooseRadio('wifi', { type: 'wifi', requests: { hwmode: '11a' } }, offers, holders(), errors)).toBe('pci-wifi-0');
    expect(chooseRadio('wifi', { type: 'wifi' }, offers, holders(), errors)).toBe('pci-wifi-0');
    expect(errors).toEqual([]);
  });

  it('refuses an access point no radio has the band for, naming requests.hwmode and saying where each radio is', () => {
    const errors: InputError[] = [];
    expect(chooseRadio('wifi', { type: 'wifi', requests: { hwmode: '11a' } }, [offers[1]!], holders(), errors)).toBeUndefined();
    expect(errors).toEqual([{ path: 'net.wifi.requests.hwmode', message: 'no radio serves 11a (5 GHz): pci-wifi-1 is on 2.4 GHz' }]);
  });

  it('gives a monitor interface a radio that serves nothing, and then no access point goes on that radio', () => {
    const held = holders();
    const errors: InputError[] = [];
    expect(chooseRadio('mon', { type: 'wifi', mode: 'monitor' }, offers, held, errors)).toBe('pci-wifi-1');
    expect(chooseRadio('wifi', { type: 'wifi', requests: { hwmode: '11g' } }, offers, held, errors)).toBeUndefined();
    expect(errors).toEqual([
      {
        path: 'net.wifi.requests.hwmode',
        message: 'no radio serves 11g (2.4 GHz): pci-wifi-0 is on 5 GHz; pci-wifi-1 is given to network mon of this chute (a monitor interface)',
      },
    ]);
  });

  it("refuses a monitor interface when every radio serves the host's networks or a chute's, saying what each serves", () => {
    const held = holders();
    held.accessPoints.set('pci-wifi-1', ['network wifi of chute hotspot']);
    const errors: InputError[] = [];
    expect(chooseRadio('mon', { type: 'wifi', mode: 'monitor' }, offers, held, errors)).toBeUndefined();
    expect(errors).toEqual([
      {
        path: 'net.mon',
        message:
          'a monitor interface takes a radio of its own, and none is free: pci-wifi-0 serves the host\'s network "Home"; pci-wifi-1 serves network wifi of chute hotspot',
      },
    ]);
  });

  it('refuses an access point on a device without radios', () => {
    const errors: InputError[] = [];
    expect(chooseRadio('wifi', { type: 'wifi' }, [], holders(), errors)).toBeUndefined();
    expect(errors).toEqual([{ path: 'net.wifi', message: 'an access point needs a radio, and the device has none in its host configuration' }]);
  });
});
