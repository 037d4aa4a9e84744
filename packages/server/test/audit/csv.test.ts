import fc from 'fast-check';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csvCellSql, csvField, unescapeCsvCell } from '../../src/audit/csv.ts';
import { startTestService, type TestService } from '../support/service.ts';

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService({ worker: false });
});
afterAll(() => svc?.stop());

/** Text a cell may hold, biased towards the characters the rules are about. */
const cellText = fc
  .oneof(
    fc.string({ unit: fc.constantFrom('=', '+', '-', '@', '\t', '\r', '\n', "'", '"', ',', 'a', ' ', 'é') }),
    fc.string(),
  )
  .filter((s) => !s.includes('\u0000')); // PostgreSQL text cannot hold NUL

describe('CSV cells', () => {
  it.each([
    ['=1+1', "'=1+1"],
    ['+1', "'+1"],
    ['-1', "'-1"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\tx', "'\tx"],
    ['\rx', `"'\rx"`],
    ["'x", "''x"],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['=HYPERLINK("x")', `"'=HYPERLINK(""x"")"`],
    ['plain', 'plain'],
  ])('csvField(%j) is %j', (value, cell) => {
    expect(csvField(value)).toBe(cell);
  });

  it('renders the same in PostgreSQL as in TypeScript, and reads back to the value with a standard parser', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.option(cellText, { nil: null }), { minLength: 1, maxLength: 30 }),
        async (values) => {
          // raw SQL on purpose: the test is of the SQL expression the export builds, run on PostgreSQL itself
          const rows = await svc.sql.query<{ cell: string }>(
            `SELECT ${csvCellSql('v')} AS cell FROM unnest($1::text[]) WITH ORDINALITY AS t(v, i) ORDER BY i`,
            [values],
          );
          expect(rows.map((r) => r.cell)).toEqual(values.map(csvField));
          const [record] = parse(`${values.map(csvField).join(',')}\r\n`, { relax_column_count: true }) as string[][];
          expect(record!.map(unescapeCsvCell)).toEqual(values.map((v) => v ?? ''));
        },
      ),
      { numRuns: 200 },
    );
  });
});
