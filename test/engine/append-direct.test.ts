import test from 'ava';
import {
  Binary, DateDay, Decimal, Field, Float32, Float64, Int16, Int32, Int64, Int8, makeData, RecordBatch, Schema, Struct,
  TimestampMicrosecond, Uint16, Uint32, Uint64, Uint8, Utf8, vectorFromArray, type Data, type DataType,
} from 'apache-arrow';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { appendBatches } from '../../core/engine/append.js';

// Appending Arrow batches copies fixed-width columns straight into DuckDB's vectors
// (core/engine/append-direct.ts) and converts the rest value by value. Every column here is
// checked row by row against the values it was built from, across chunk boundaries, slices
// whose offsets are and are not byte-aligned, and NULLs.

const ROWS = 5_000;
const isNull = (row: number) => row % 7 === 3;

/** A column of `type` from raw little-endian values, NULL where `isNull` (the id column: never). */
function column(type: DataType, values: ArrayBufferView, nullable: boolean): Data {
  const nullBitmap = new Uint8Array(Math.ceil(ROWS / 8));
  let nullCount = 0;
  for (let row = 0; row < ROWS; row++) {
    if (nullable && isNull(row)) nullCount++;
    else nullBitmap[row >> 3] = nullBitmap[row >> 3]! | (1 << (row & 7));
  }
  return makeData({ type, length: ROWS, nullCount, nullBitmap, data: values } as never) as Data;
}

const unscaled = {
  dec4: (row: number) => BigInt((row % 19_999) - 9_999),
  dec9: (row: number) => BigInt(((row * 99_991) % 1_999_999_998) - 999_999_999),
  dec18: (row: number) => BigInt(row) * 123_456_789_012_345n - 300_000_000_000_000_000n,
  dec38: (row: number) => BigInt(row - 2_500) * 10n ** 30n + BigInt(row),
  // Scale 1 into a scale-2 column: not the same storage, converted value by value.
  rescaled: (row: number) => BigInt((row % 2_001) - 1_000),
};

function decimalWords(value: (row: number) => bigint): Uint32Array {
  const words = new Uint32Array(ROWS * 4);
  for (let row = 0; row < ROWS; row++) {
    let bits = BigInt.asUintN(128, value(row));
    for (let word = 0; word < 4; word++, bits >>= 32n) words[row * 4 + word] = Number(bits & 0xffffffffn);
  }
  return words;
}

const expected = {
  i8: (row: number) => (row % 256) - 128,
  i16: (row: number) => ((row * 13) % 65_536) - 32_768,
  i32: (row: number) => row * 100_003 - 250_000_000,
  i64: (row: number) => BigInt(row) * 1_000_000_007n - 5_000_000_000_000n,
  u8: (row: number) => row % 256,
  u16: (row: number) => (row * 7) % 65_536,
  u32: (row: number) => (row * 1_000_003) % 4_294_967_296,
  u64: (row: number) => BigInt(row) * 1_000_000_000_000_000n,
  f32: (row: number) => row / 4,
  f64: (row: number) => row / 3,
  days: (row: number) => row - 2_500,
  micros: (row: number) => BigInt(row - 2_500) * 3_600_000_001n,
};

const fill = <T extends { length: number; [index: number]: number | bigint }>(array: T, value: (row: number) => number | bigint): T => {
  for (let row = 0; row < ROWS; row++) array[row] = value(row) as never;
  return array;
};

/** Text of every length class: empty, short (inside DuckDB's 16-byte string_t), exactly 12 bytes, 13, longer. */
const label = (row: number) => {
  switch (row % 5) {
    case 0: return row % 11 === 5 ? '' : `${row}`;
    case 1: return 'é'.repeat(6);
    case 2: return `x${'é'.repeat(6)}`;
    case 3: return `🎉${row % 100}`;
    default: return `ŝtring ${row} 🎉`;
  }
};
const blob = (row: number) => Uint8Array.from({ length: row % 5 }, (_, index) => (row + index * 61) % 256);
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

function buildBatch(): RecordBatch {
  const columns: Array<[string, DataType, Data]> = [];
  const add = (name: string, type: DataType, values: ArrayBufferView) => columns.push([name, type, column(type, values, name !== 'id')]);
  add('id', new Int32(), fill(new Int32Array(ROWS), (row) => row));
  add('i8', new Int8(), fill(new Int8Array(ROWS), expected.i8));
  add('i16', new Int16(), fill(new Int16Array(ROWS), expected.i16));
  add('i32', new Int32(), fill(new Int32Array(ROWS), expected.i32));
  add('i64', new Int64(), fill(new BigInt64Array(ROWS), expected.i64));
  add('u8', new Uint8(), fill(new Uint8Array(ROWS), expected.u8));
  add('u16', new Uint16(), fill(new Uint16Array(ROWS), expected.u16));
  add('u32', new Uint32(), fill(new Uint32Array(ROWS), expected.u32));
  add('u64', new Uint64(), fill(new BigUint64Array(ROWS), expected.u64));
  add('f32', new Float32(), fill(new Float32Array(ROWS), expected.f32));
  add('f64', new Float64(), fill(new Float64Array(ROWS), expected.f64));
  add('d', new DateDay(), fill(new Int32Array(ROWS), expected.days));
  add('ts', new TimestampMicrosecond(), fill(new BigInt64Array(ROWS), expected.micros));
  add('tstz', new TimestampMicrosecond('UTC'), fill(new BigInt64Array(ROWS), expected.micros));
  add('dec4', new Decimal(2, 4, 128), decimalWords(unscaled.dec4));
  add('dec9', new Decimal(3, 9, 128), decimalWords(unscaled.dec9));
  add('dec18', new Decimal(1, 18, 128), decimalWords(unscaled.dec18));
  add('dec38', new Decimal(5, 38, 128), decimalWords(unscaled.dec38));
  add('rescaled', new Decimal(1, 5, 128), decimalWords(unscaled.rescaled));
  const labels = vectorFromArray(Array.from({ length: ROWS }, (_, row) => (isNull(row) ? null : label(row))), new Utf8());
  columns.push(['label', new Utf8(), labels.data[0]!]);
  const blobs = vectorFromArray(Array.from({ length: ROWS }, (_, row) => (isNull(row) ? null : blob(row))), new Binary());
  columns.push(['bytes', new Binary(), blobs.data[0]!]);
  const schema = new Schema(columns.map(([name, type]) => new Field(name, type, true)));
  return new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length: ROWS, nullCount: 0, children: columns.map(([, , data]) => data) }));
}

/** A decimal's text as DuckDB prints it: every digit of the scale. */
function decimalText(value: bigint, scale: number): string {
  const negative = value < 0n;
  const digits = (negative ? -value : value).toString().padStart(scale + 1, '0');
  return `${negative ? '-' : ''}${digits.slice(0, digits.length - scale)}.${digits.slice(digits.length - scale)}`;
}

test('every fixed-width type lands exactly, NULLs included, across chunks and unaligned slices; the rest converts value by value', async (t) => {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    await connection.run(`CREATE TABLE t (id INTEGER, i8 TINYINT, i16 SMALLINT, i32 INTEGER, i64 BIGINT, u8 UTINYINT, u16 USMALLINT,
      u32 UINTEGER, u64 UBIGINT, f32 FLOAT, f64 DOUBLE, d DATE, ts TIMESTAMP, tstz TIMESTAMPTZ, dec4 DECIMAL(4,2), dec9 DECIMAL(9,3),
      dec18 DECIMAL(18,1), dec38 DECIMAL(38,5), rescaled DECIMAL(10,2), label VARCHAR, bytes BLOB)`);
    const batch = buildBatch();
    // Offsets 0 (aligned), 1000 (aligned, then a chunk boundary inside the slice) and 3100 (not byte-aligned).
    const slices = [batch.slice(0, 1_000), batch.slice(1_000, 3_100), batch.slice(3_100, ROWS)];
    async function* batches() {
      yield* slices;
    }
    const rows = await appendBatches({ connection, table: { catalog: 'memory', schema: 'main', name: 't' }, schema: batch.schema, batches: batches(), signal: new AbortController().signal });
    t.is(rows, ROWS);
    const reader = await connection.runAndReadAll(`SELECT id, i8, i16, i32, i64, u8, u16, u32, u64, f32, f64, d - DATE '1970-01-01' AS days, epoch_us(ts) AS ts,
      epoch_us(tstz) AS tstz, dec4::VARCHAR, dec9::VARCHAR, dec18::VARCHAR, dec38::VARCHAR, rescaled::VARCHAR, label, hex(bytes) FROM t ORDER BY id`);
    const actual = reader.getRowsJS();
    t.is(actual.length, ROWS);
    const mismatches: string[] = [];
    for (const [row, values] of actual.entries()) {
      const want = isNull(row)
        ? [row, ...Array(20).fill(null)]
        : [row, expected.i8(row), expected.i16(row), expected.i32(row), expected.i64(row), expected.u8(row), expected.u16(row), expected.u32(row),
            expected.u64(row), expected.f32(row), expected.f64(row), expected.days(row), expected.micros(row), expected.micros(row),
            decimalText(unscaled.dec4(row), 2), decimalText(unscaled.dec9(row), 3), decimalText(unscaled.dec18(row), 1),
            decimalText(unscaled.dec38(row), 5), decimalText(unscaled.rescaled(row) * 10n, 2), label(row), hex(blob(row)).toUpperCase()];
      for (let index = 0; index < want.length; index++) {
        const wanted = want[index];
        const value = values[index];
        const same = typeof wanted === 'number' && typeof value === 'bigint' ? BigInt(wanted) === value : wanted === value;
        if (!same && mismatches.length < 10) mismatches.push(`row ${row} column ${index}: ${String(value)} != ${String(wanted)}`);
      }
    }
    t.deepEqual(mismatches, []);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
});

test('text that is not valid UTF-8 element by element is converted value by value: invalid bytes become U+FFFD', async (t) => {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    await connection.run('CREATE TABLE t (id INTEGER, text VARCHAR)');
    const schema = new Schema([new Field('id', new Int32(), false), new Field('text', new Utf8(), false)]);
    const batchOf = (first: number, bytes: number[], offsets: number[]) => {
      const length = offsets.length - 1;
      const text = makeData({ type: new Utf8(), length, nullCount: 0, valueOffsets: Int32Array.from(offsets), data: Uint8Array.from(bytes) });
      const ids = makeData({ type: new Int32(), length, nullCount: 0, data: Int32Array.from({ length }, (_, index) => first + index) });
      return new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length, nullCount: 0, children: [ids, text] }));
    };
    // "é" split over two elements: the bytes as a whole are valid UTF-8, each element is not.
    const split = batchOf(0, [0xc3, 0xa9, 0x6f, 0x6b], [0, 1, 2, 4]);
    // A stray 0xFF.
    const stray = batchOf(3, [0xff, 0x41], [0, 2]);
    await appendBatches({ connection, table: { catalog: 'memory', schema: 'main', name: 't' }, schema, batches: (async function* () { yield split; yield stray; })(), signal: new AbortController().signal });
    const rows = (await connection.runAndReadAll('SELECT text FROM t ORDER BY id')).getRowsJS().map((row) => row[0]);
    t.deepEqual(rows, ['\uFFFD', '\uFFFD', 'ok', '\uFFFDA']);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
});

async function withConnection(run: (connection: DuckDBConnection) => Promise<void>): Promise<void> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    await run(connection);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

const INT_SCHEMA = new Schema([new Field('n', new Int32(), false)]);

/**
 * A batch of `length` INTEGER rows whose values buffer holds only `held` (7 each). makeData
 * sizes the view from the buffer it is given; a malformed IPC body can still say more.
 */
function shortBatch(length: number, held: number): RecordBatch {
  const data = makeData({ type: new Int32(), length, nullCount: 0, data: new Int32Array(held) } as never) as Data;
  Object.defineProperty(data, 'values', { value: new Int32Array(held).fill(7) });
  return new RecordBatch(INT_SCHEMA, makeData({ type: new Struct(INT_SCHEMA.fields), length, nullCount: 0, children: [data] } as never) as unknown as Data<Struct>);
}

const appendTo = (connection: DuckDBConnection, name: string, batch: RecordBatch, exactColumns = false) => appendBatches({
  connection, table: { catalog: 'memory', schema: 'main', name }, schema: INT_SCHEMA, batches: (async function* () { yield batch; })(), signal: new AbortController().signal, exactColumns,
});

const countRows = async (connection: DuckDBConnection, table: string) => ((await connection.runAndReadAll(`SELECT count(*) FROM ${table}`)).getRows() as [[bigint]])[0][0];

test('a batch whose values buffer is shorter than its length is refused with a clear error, never read past its end', async (t) => {
  await withConnection(async (connection) => {
    await connection.run('CREATE TABLE short (n INTEGER)');
    // Says 100,000 rows, holds 10 values: the engine would copy 400 KB from a 40-byte buffer.
    const error = await t.throwsAsync(appendTo(connection, 'short', shortBatch(100_000, 10)));
    t.is((error as Error & { code?: string }).code, 'INGEST_SCHEMA_MISMATCH');
    t.regex(error!.message, /column "n": the Arrow batch holds 10 values, fewer than its 2048 rows; the batch is malformed/);
    t.is(await countRows(connection, 'short'), 0n, 'nothing of the batch was stored');
  });
});

test('exactColumns: no column lookup, still one transaction: a batch that fails part way stores nothing', async (t) => {
  await withConnection(async (connection) => {
    await connection.run('CREATE TABLE exact (n INTEGER)');
    // 3,000 rows holding 2,500 values: the first chunk (2,048 rows) is whole, the second is not.
    await t.throwsAsync(appendTo(connection, 'exact', shortBatch(3_000, 2_500), true), { message: /fewer than its 3000 rows/ });
    t.is(await countRows(connection, 'exact'), 0n, 'the first chunk was rolled back with the rest');
    await appendTo(connection, 'exact', shortBatch(5, 5), true);
    t.is(await countRows(connection, 'exact'), 5n, 'a whole batch lands, committed');
  });
});
