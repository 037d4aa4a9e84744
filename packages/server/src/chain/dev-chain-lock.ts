import { linkSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isAlive } from '../system/children.ts';

/** The directories this process holds: a file naming our pid that is not among them is a former process's. */
const held = new Set<string>();

/**
 * Claims a dev chain's data directory for this process, or throws saying which process has it. anvil writes its
 * whole state file every two seconds, so two processes on one directory interleave their writes and leave a file
 * that neither can load again. The claim is a file holding the owner's pid, created exclusively; one whose process
 * is gone (killed outright, say; or a former process that had our pid, as a container's first process does) is
 * taken over. Returns the release, which removes the file.
 */
export function claimDevChainDir(dataDir: string): () => void {
  const path = join(dataDir, 'owner.pid');
  // written whole under a name of its own, then linked into place: the claim never exists without its pid
  const mine = `${path}.${process.pid}`;
  writeFileSync(mine, String(process.pid));
  try {
    return claim(dataDir, path, mine);
  } finally {
    rmSync(mine, { force: true });
  }
}

function claim(dataDir: string, path: string, mine: string): () => void {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      linkSync(mine, path);
      held.add(path);
      return () => {
        if (held.delete(path)) rmSync(path, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = Number.parseInt(readFileSync(path, 'utf8'), 10);
    const ours = owner === process.pid;
    if (ours ? held.has(path) : Number.isInteger(owner) && isAlive(owner))
      throw new Error(
        `the dev chain in ${dataDir} is in use by process ${owner}; give each service its own DATA_DIR, ` +
          'or share one chain by setting CHAIN_RPC_URL',
      );
    rmSync(path, { force: true }); // its owner is gone: take it over
  }
  throw new Error(`could not claim the dev chain in ${dataDir}: another process claimed it at the same moment`);
}
