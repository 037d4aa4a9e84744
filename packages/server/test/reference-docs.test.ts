import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { ERROR_STATUS } from '../src/errors.ts';

const read = (path: string): string => readFileSync(new URL(`../../../${path}`, import.meta.url), 'utf8');

/** The lines of the Markdown table that follows `heading` in `text` (the first table after it). */
function tableAfter(text: string, heading: string): string[] {
  const start = text.indexOf(`\n${heading}\n`);
  expect(start, `${heading} is missing`).toBeGreaterThanOrEqual(0);
  const lines = text.slice(start).split('\n');
  const first = lines.findIndex((line) => line.startsWith('|'));
  const end = lines.findIndex((line, i) => i > first && !line.startsWith('|'));
  return lines.slice(first + 2, end);
}

describe('the reference in docs/', () => {
  it("lists every error code the server answers with, under its status, and no other (docs/api.md, 'Errors')", () => {
    const documented: Record<string, number> = {};
    for (const row of tableAfter(read('docs/api.md'), '## Errors')) {
      const [, status, codes] = row.split('|').map((cell) => cell.trim());
      for (const [, code] of codes!.matchAll(/`([A-Z][A-Z_]+)`/g)) documented[code!] = Number(status);
    }
    expect(documented).toEqual(ERROR_STATUS);
  });

  it("names every variable the configuration reads (docs/configuration.md, 'Variables')", () => {
    const table = tableAfter(read('docs/configuration.md'), '## Variables').join('\n');
    const source = read('packages/server/src/config-schema.ts');
    const variables = [...source.matchAll(/^ {2}([A-Z][A-Z0-9_]+): /gm)].map((m) => m[1]!);
    expect(variables.length).toBeGreaterThan(20);
    for (const name of variables) expect(table, name).toContain(`\`${name}\``);
  });

  it("gives the quick start's Ctrl-C drain time as the configuration's default", () => {
    const seconds = loadConfig({}).shutdownDrainMs / 1000;
    expect(read('README.md')).toContain(
      `requests in flight finish first (${seconds} s at most, \`SHUTDOWN_DRAIN_TIMEOUT\`)`,
    );
    expect(read('docs/configuration.md')).toMatch(new RegExp(`\\| \`SHUTDOWN_DRAIN_TIMEOUT\` \\| \`${seconds}s\` \\|`));
  });
});
