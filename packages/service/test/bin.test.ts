import { describe, expect, it } from 'vitest';
import { runCli } from '@attestation-service/server/testing';

// Each Node process the command runs prints its V8 flags on start (a preload given in NODE_OPTIONS), so a `serve`
// that replaces itself prints twice: before the execve and after.
const PRINT_FLAGS =
  "--import=data:text/javascript,console.log('execArgv='+JSON.stringify([process.pid,process.execArgv.filter(f=>!f.startsWith('--import')),process.env.MALLOC_ARENA_MAX,process.env.MALLOC_MMAP_THRESHOLD_]))";
const starts = (stdout: string) =>
  stdout
    .split('\n')
    .filter((line) => line.startsWith('execArgv='))
    .map(
      (line) =>
        JSON.parse(line.slice('execArgv='.length)) as [number, string[], string | undefined, string | undefined],
    );
const flagsOf = (stdout: string) => starts(stdout).map(([, flags]) => flags);
const API_FLAGS = ['--max-semi-space-size=8', '--heap-growing-percent=100'];

describe('the attestation-service bin', () => {
  it('gives an API process its heap flags, two malloc arenas and a fixed mmap threshold, in one process (execve)', async () => {
    const run = await runCli({ ...process.env, NODE_OPTIONS: PRINT_FLAGS }, 'serve', '--help');
    expect(run.code).toBe(0);
    expect(flagsOf(run.stdout)).toEqual([[], API_FLAGS]);
    const [before, after] = starts(run.stdout);
    expect(after![0]).toBe(before![0]);
    expect(after![2]).toBe('2');
    expect(after![3]).toBe('65536');
    expect(run.stdout).toContain('serve [--api] [--worker] [--verify]');
  });

  it('leaves a flag or the arenas to the operator who sets them, on the command line or in NODE_OPTIONS', async () => {
    const inOptions = await runCli(
      { ...process.env, NODE_OPTIONS: `${PRINT_FLAGS} --max_semi_space_size=4`, MALLOC_ARENA_MAX: '4' },
      'serve',
      '--help',
    );
    expect(starts(inOptions.stdout).map(([, flags, arenas]) => [flags, arenas])).toEqual([
      [[], '4'],
      [['--heap-growing-percent=100'], '4'],
    ]);
  });

  it("leaves glibc's settings alone when the operator tunes glibc with GLIBC_TUNABLES", async () => {
    const tuned = await runCli(
      { ...process.env, NODE_OPTIONS: PRINT_FLAGS, GLIBC_TUNABLES: 'glibc.malloc.arena_max=4' },
      'serve',
      '--help',
    );
    const [, after] = starts(tuned.stdout);
    expect(after!.slice(1)).toEqual([API_FLAGS, null, null]); // JSON: neither variable was set
  });

  it('gives it to serve --api and to serve with the API among its parts, not to a worker or the verify app alone', async () => {
    const flags = async (...args: string[]) =>
      flagsOf((await runCli({ ...process.env, NODE_OPTIONS: PRINT_FLAGS }, ...args, '--help')).stdout).at(-1);
    expect(await flags('serve', '--api')).toEqual(API_FLAGS);
    expect(await flags('serve', '--worker', '--api')).toEqual(API_FLAGS);
    expect(await flags('serve', '--worker')).toEqual([]);
    expect(await flags('serve', '--verify')).toEqual([]);
    expect(await flags('keys')).toEqual([]);
  }, 90_000); // five starts of the bin, each of which starts Node again: slow on a loaded machine
});
