/**
 * The answers of the fake runtime, keyed by the SQL text it receives (trimmed, blanks
 * collapsed, lower-case). Anything else is answered as a syntax error.
 */
import { Decimal, Field, Int32, Int64, List, Table, Timestamp, TimeUnit, Utf8, makeData, makeVector, vectorFromArray, Schema, Bool } from 'apache-arrow';

export type CannedResult =
  | { kind: 'table'; table: Table; cacheStatus?: string }
  | { kind: 'error'; status: number; code: string; message: string }
  | { kind: 'hang' }
  /** Answered with `table` when the test calls `releaseHeld()`: a query that takes as long as the test wants. */
  | { kind: 'held'; table: Table }
  /** Sends the first part of the Arrow answer, then drops the connection (a runtime dying mid-result). */
  | { kind: 'cut-off'; table: Table };

function peopleTable(): Table {
  // Values chosen to exercise the renderer: a bigint beyond 2^53, a NULL, a
  // microsecond timestamp, a decimal, a list, and wide (CJK) text.
  const scores = new Uint32Array([12345, 0, 0, 0, 0, 0, 0, 0, 4294967196, 4294967295, 4294967295, 4294967295]);
  return new Table({
    id: vectorFromArray([1n, 2n, 9007199254740993n], new Int64()),
    name: vectorFromArray(['alice', null, '山田太郎'], new Utf8()),
    score: makeVector(makeData({ type: new Decimal(2, 12, 128), length: 3, nullCount: 0, data: scores })),
    joined: makeVector(
      makeData({ type: new Timestamp(TimeUnit.MICROSECOND), length: 3, nullCount: 0, data: new BigInt64Array([1704164645123456n, 0n, 1719792000000000n]) }),
    ),
    tags: vectorFromArray([['a', 'b'], [], null], new List(new Field('item', new Utf8(), true))),
    active: vectorFromArray([true, false, null], new Bool()),
  });
}

function numbersTable(count: number): Table {
  return new Table({ n: vectorFromArray(Int32Array.from({ length: count }, (_, i) => i + 1)) });
}

export const cannedResults: Record<string, CannedResult> = {
  'select 1 as one': { kind: 'table', table: new Table({ one: vectorFromArray([1], new Int32()) }) },
  'select 2 as two': { kind: 'table', table: new Table({ two: vectorFromArray([2], new Int32()) }) },
  'select * from people': { kind: 'table', table: peopleTable() },
  'select * from numbers': { kind: 'table', table: numbersTable(1234) },
  'select * from empty': { kind: 'table', table: new Table(new Schema([new Field('id', new Int64(), true)])) },
  'select * from cached': { kind: 'table', table: new Table({ one: vectorFromArray([1], new Int32()) }), cacheStatus: 'HIT' },
  "select 'a;b' as text": { kind: 'table', table: new Table({ text: vectorFromArray(['a;b'], new Utf8()) }) },
  'show tables': { kind: 'table', table: new Table({ name: vectorFromArray(['people', 'numbers'], new Utf8()) }) },
  'select * from secrets': { kind: 'error', status: 403, code: 'ACCESS_DENIED', message: 'Access denied: reading files is not allowed' },
  'select * from missing': { kind: 'error', status: 400, code: 'TABLE_NOT_FOUND', message: 'Table "missing" does not exist' },
  'select * from slow': { kind: 'hang' },
  'select * from held': { kind: 'held', table: new Table({ answer: vectorFromArray([42], new Int32()) }) },
  'select * from broken': { kind: 'cut-off', table: numbersTable(100_000) },
};
