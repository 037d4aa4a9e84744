import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claimDevChainDir } from '../../src/chain/dev-chain-lock.ts';

let dir: string;
beforeEach(async () => void (dir = await mkdtemp(join(tmpdir(), 'dev-chain-lock-'))));
afterEach(() => rm(dir, { recursive: true, force: true }));
const ownerFile = () => join(dir, 'owner.pid');

describe('the claim on a dev chain directory', () => {
  it('is this process until released, and free again after', () => {
    const release = claimDevChainDir(dir);
    expect(readFileSync(ownerFile(), 'utf8')).toBe(String(process.pid));
    release();
    expect(existsSync(ownerFile())).toBe(false);
    claimDevChainDir(dir)();
  });

  it('refuses while another running process holds it, naming the process and what to do', () => {
    writeFileSync(ownerFile(), String(process.ppid));
    expect(() => claimDevChainDir(dir)).toThrow(
      `the dev chain in ${dir} is in use by process ${process.ppid}; give each service its own DATA_DIR`,
    );
    expect(readFileSync(ownerFile(), 'utf8')).toBe(String(process.ppid));
  });

  it('refuses a second claim of this same process while it holds the first', () => {
    const release = claimDevChainDir(dir);
    expect(() => claimDevChainDir(dir)).toThrow(`is in use by process ${process.pid}`);
    release();
  });

  it('takes over a claim whose process is gone (killed outright), or that holds no pid', () => {
    const gone = spawnSync('true').pid!;
    writeFileSync(ownerFile(), String(gone));
    claimDevChainDir(dir);
    expect(readFileSync(ownerFile(), 'utf8')).toBe(String(process.pid));
    writeFileSync(ownerFile(), '');
    claimDevChainDir(dir)();
  });

  it("takes over a claim with this process's pid that it does not hold (a former process had the pid)", () => {
    writeFileSync(ownerFile(), String(process.pid));
    const release = claimDevChainDir(dir);
    expect(readFileSync(ownerFile(), 'utf8')).toBe(String(process.pid));
    release();
    expect(existsSync(ownerFile())).toBe(false);
  });
});
