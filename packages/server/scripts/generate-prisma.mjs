// Runs `prisma generate` without Prisma's schema engine, which cannot be downloaded on our build machines:
// generate does not use the engine, it only checks that the path it is given exists.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const placeholder = join(mkdtempSync(join(tmpdir(), 'prisma-')), 'schema-engine');
writeFileSync(
  placeholder,
  '#!/bin/sh\necho "schema engine not available: migrations are applied by attestation-service migrate" >&2\nexit 1\n',
);
chmodSync(placeholder, 0o755);
execFileSync('prisma', ['generate', '--schema', '../../prisma/schema.prisma'], {
  stdio: ['ignore', 'ignore', 'inherit'],
  env: { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: placeholder, PRISMA_HIDE_UPDATE_MESSAGE: '1' },
});
