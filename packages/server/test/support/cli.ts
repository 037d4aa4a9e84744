import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

/** The `attestation-service` command (the launcher's bin, packages/service), run with this Node as an operator runs it. */
export const CLI = join(import.meta.dirname, '../../../service/bin/attestation-service.mjs');

/** Runs the CLI to completion with this environment; never throws for a non-zero exit. */
export async function runCli(
  env: NodeJS.ProcessEnv,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [CLI, ...args], { env });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}
