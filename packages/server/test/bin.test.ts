import { describe, expect, it } from 'vitest';
import { runCli } from './support/cli.ts';

// Each Node process the command runs prints its V8 flags on start (a preload given in NODE_OPTIONS), so a `serve`
// that replaces itself prints twice: before the execve and after.
const PRINT_FLAGS = "--import=data:text/javascript,console.log('execArgv='+JSON.stringify([process.pid,process.execArgv.filter(f=>!f.startsWith('--import'))]))";
const starts = (stdout: string) => stdout.split('\n').filter((line) => line.startsWith('execArgv=')).map((line) => JSON.parse(line.slice('execArgv='.length)) as [number, string[]]);
const flagsOf = (stdout: string) => starts(stdout).map(([, flags]) => flags);

describe('the attestation-service bin', () => {
  it('gives a serve process a young generation of 2 × 8 MB, in the same process (execve)', async () => {
    const run = await runCli({ ...process.env, NODE_OPTIONS: PRINT_FLAGS }, 'serve', '--help');
    expect(run.code).toBe(0);
    expect(flagsOf(run.stdout)).toEqual([[], ['--max-semi-space-size=8']]);
    const [before, after] = starts(run.stdout);
    expect(after![0]).toBe(before![0]);
    expect(run.stdout).toContain('serve [--api] [--worker] [--verify]');
  });

  it('leaves the flag to the operator who sets it, on the command line or in NODE_OPTIONS', async () => {
    const inOptions = await runCli({ ...process.env, NODE_OPTIONS: `${PRINT_FLAGS} --max_semi_space_size=4` }, 'serve', '--help');
    expect(flagsOf(inOptions.stdout)).toEqual([[]]);
  });

  it('does not touch the other commands', async () => {
    const run = await runCli({ ...process.env, NODE_OPTIONS: PRINT_FLAGS }, 'keys', '--help');
    expect(flagsOf(run.stdout)).toEqual([[]]);
  });
});
