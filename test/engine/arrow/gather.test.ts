import { DuckDBInstance } from '@duckdb/node-api';
import test from 'ava';
import { createAccumulator } from '../../../core/engine/arrow/accumulators/create-accumulator.js';
import { chunkVector } from '../../../core/engine/arrow/duckdb-vectors.js';
import { arrowSchemaFor } from '../../../core/engine/arrow/index.js';
import { rowIndexes, rowRange } from '../../../core/engine/arrow/row-selection.js';
import { createEveryTypeEnums, everyTypeQuery } from './helpers/every-type-query.js';
import { arrowValueToPlain, duckValueToPlain } from './helpers/plain-values.js';

// Lists whose entries are not back to back in their child vector make the converter gather
// rows by index. DuckDB rarely produces them, so the gather path is driven directly: rows
// picked out of order and repeated, for every type.
test('appending rows by index (out of order, repeated) gives the same values for every type', async (t) => {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  await createEveryTypeEnums(connection);
  const sql = everyTypeQuery(2048);
  const reference = await connection.run(sql);
  const types = reference.columnTypes();
  const expectedRows = await reference.getRows();

  const result = await connection.stream(sql);
  const schema = arrowSchemaFor(result);
  const chunk = (await result.fetchChunk())!;
  t.is(chunk.rowCount, 2048);
  const picked = [7, 3, 3, 0, 2047, 100, 1, 2, 4, 5, 6, 13];
  types.forEach((type, c) => {
    const accumulator = createAccumulator(type, schema.fields[c]!.type);
    accumulator.append(chunkVector(chunk.chunk, c), chunk.rowCount, rowRange(10, 3));
    accumulator.append(chunkVector(chunk.chunk, c), chunk.rowCount, rowIndexes(Uint32Array.from(picked)));
    const data = accumulator.finish();
    const rows = [10, 11, 12, ...picked];
    t.is(data.length, rows.length);
    const actual = rows.map((_, i) => arrowValueToPlain(data, i));
    const expected = rows.map((row) => duckValueToPlain(expectedRows[row]![c]!, type));
    t.deepEqual(actual, expected, `column ${schema.fields[c]!.name}`);
    t.is(accumulator.length, 0, 'finish leaves the accumulator empty');
  });
});
