import { describe, expect, it } from 'vitest';
import { isCommand, lightDockerfile } from './light-dockerfile.ts';

describe('lightDockerfile: the Dockerfile of a light chute', () => {
  it('builds on the base image of its runtime, copies the source to /opt/paradrop/app, installs what the source asks, and runs the command by the shell', () => {
    expect(lightDockerfile('python3', 'python3 main.py')).toBe(
      [
        'FROM python:3.12-slim',
        'WORKDIR /opt/paradrop/app',
        'COPY . /opt/paradrop/app/',
        'RUN if [ -f requirements.txt ]; then pip install --requirement requirements.txt; fi',
        'CMD python3 main.py',
        '',
      ].join('\n'),
    );
  });

  it('writes a command given as a list in exec form, each argument quoted as JSON', () => {
    expect(lightDockerfile('node', ['node', 'index.js', 'a "b"']).split('\n').at(-2)).toBe('CMD ["node","index.js","a \\"b\\""]');
  });
});

describe('isCommand', () => {
  it('takes a string or a list of strings, and refuses what would add a line to the Dockerfile', () => {
    expect(isCommand('node index.js')).toBe(true);
    expect(isCommand(['node', 'index.js'])).toBe(true);
    expect(isCommand('sleep 1\nRUN rm -rf /')).toBe(false);
    expect(isCommand(['node', 'x\ry'])).toBe(false);
    expect(isCommand('')).toBe(false);
    expect(isCommand([])).toBe(false);
    expect(isCommand(42)).toBe(false);
  });
});
