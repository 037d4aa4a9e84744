import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const LOG = fileURLToPath(new URL('../../src/log.ts', import.meta.url));

/** A child process logging through the process logger (stdout a pipe, as under a supervisor or in this test). */
async function logIn(format: string): Promise<string> {
  const script = `
    const { createLogger } = await import(${JSON.stringify(LOG)});
    const log = createLogger('info', undefined, undefined, ${JSON.stringify(format)});
    log.info({ apiKey: 'sk_live_must_not_show', uid: '0xabc' }, 'attestation created');
    log.debug('routine detail');
    // no flush: a pretty line is written as it happens, not when a buffer fills
    process.exit(0);
  `;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script]);
  return stdout;
}

describe('the log format', () => {
  it('pretty: one readable line per entry, written at once, secrets redacted', async () => {
    const out = await logIn('pretty');
    const lines = out.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\[\d\d:\d\d:\d\d\] INFO: attestation created/);
    expect(lines[0]).toContain('[redacted]');
    expect(out).not.toContain('sk_live_must_not_show');
    expect(out).not.toContain('{"level"');
  });

  it('auto: JSON lines when stdout is not a terminal', async () => {
    const out = await logIn('auto');
    // buffered for throughput: a process that exits without flushing may lose nothing but this buffer's tail, so
    // the JSON path is checked through the format only
    for (const line of out.trim().split('\n').filter(Boolean)) expect(JSON.parse(line)).toHaveProperty('level');
    expect(out).not.toContain('sk_live_must_not_show');
  });
});
