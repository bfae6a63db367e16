import { describe, expect, it } from 'vitest';
import { ScenarioError } from '../../runtime/scenario/format.ts';
import { DEFAULT_RATES, parseLivingYaml } from './spec.ts';

const FILE = 'scenarios/lab/living.yaml';

/** The message a bad living.yaml is refused with. */
function refusal(text: string): string {
  try {
    parseLivingYaml(text, FILE);
  } catch (error) {
    expect(error).toBeInstanceOf(ScenarioError);
    return (error as Error).message;
  }
  throw new Error('the file was taken');
}

describe('living.yaml', () => {
  it('takes the rates given and the defaults for the others, and puts the timeline in time order with MACs in lower case', () => {
    const living = parseLivingYaml(
      [
        'rates: { joinsPerHour: 6, meanSessionMinutes: 10 }',
        'timeline:',
        '  - { at: 90, station: "02:AA:00:00:00:01", leave: true }',
        '  - { at: 30, station: "02:aa:00:00:00:01", join: hello-world/wifi, hostname: phone, signal: -60 }',
      ].join('\n'),
      FILE,
    );
    expect(living.rates).toEqual({ ...DEFAULT_RATES, joinsPerHour: 6, meanSessionMinutes: 10, maxSessionMinutes: 40 });
    expect(living.timeline).toEqual([
      { at: 30, station: '02:aa:00:00:00:01', join: 'hello-world/wifi', hostname: 'phone', signal: -60 },
      { at: 90, station: '02:aa:00:00:00:01', leave: true },
    ]);
  });

  it('is an empty file or a mapping of nothing: the default rates and no timeline', () => {
    expect(parseLivingYaml('# nothing yet\n', FILE)).toEqual({ rates: DEFAULT_RATES, timeline: [] });
  });

  it('refuses a bad value, naming the file and the field', () => {
    expect(refusal('rates: { joinsPerHour: lots }\n')).toMatch(
      /^scenarios\/lab\/living\.yaml is not a valid living network:\n.*\n {2}→ at rates\.joinsPerHour$/,
    );
    expect(refusal('rates: { roamProbability: 2 }\n')).toContain('→ at rates.roamProbability');
    expect(refusal('rates: { meanSessionMinutes: 60, maxSessionMinutes: 30 }\n')).toContain(
      '✖ must not be below meanSessionMinutes (60)\n  → at rates.maxSessionMinutes',
    );
    expect(refusal('tempo: fast\n')).toContain('tempo');
    expect(refusal('timeline:\n  - { at: 5, station: "02:aa:00:00:00:01", join: wifi }\n')).toContain(
      '✖ must name an access point as <chute>/<network>, e.g. hello-world/wifi\n  → at timeline[0].join',
    );
    expect(refusal('timeline:\n  - { at: 5, station: "02:aa:00:00:00:01", join: a/b, leave: true }\n')).toContain(
      '✖ must say one of join, roam or leave\n  → at timeline[0]',
    );
  });

  it("refuses a timeline whose steps make no sense in time order, naming the step's field", () => {
    expect(refusal('timeline:\n  - { at: 5, station: "02:aa:00:00:00:01", roam: a/b }\n')).toContain(
      '✖ station 02:aa:00:00:00:01 has not joined by 5 s: it must join first\n  → at timeline[0].roam',
    );
    expect(refusal('timeline:\n  - { at: 9, station: "02:aa:00:00:00:01", join: a/c }\n  - { at: 5, station: "02:aa:00:00:00:01", join: a/b }\n')).toContain(
      '✖ station 02:aa:00:00:00:01 is on a/b since timeline[1]: it must leave before it joins again\n  → at timeline[0].join',
    );
    expect(refusal('timeline:\n  - { at: 5, station: "02:aa:00:00:00:01", join: a/b }\n  - { at: 9, station: "02:aa:00:00:00:01", roam: a/b }\n')).toContain(
      '→ at timeline[1].roam',
    );
    expect(refusal('timeline:\n  - { at: 5, station: "02:aa:00:00:00:01", join: a/b }\n  - { at: 5, station: "02:aa:00:00:00:01", leave: true }\n')).toContain(
      'comes at the same time as timeline[0]',
    );
  });
});
