import test from 'ava';
import { ResultModes } from '../../core/engine/result-modes.js';
import { withRuntime } from '../helpers/runtime.js';

type Seen = { chunks: number; rows: number; batches: number };
const SPARSE: Seen = { chunks: 600, rows: 12_000, batches: 1 };

/** Each case: what runs of one statement showed, in order, and the mode its next run takes. */
const CASES: Array<[string, Array<['stream' | 'materialize', Seen]>, 'stream' | 'materialize']> = [
  ['never run', [], 'stream'],
  ['20 rows a chunk over 600 chunks', [['stream', SPARSE]], 'materialize'],
  ['run whole and still small', [['stream', SPARSE], ['materialize', { chunks: 6, rows: 12_000, batches: 1 }]], 'materialize'],
  ['run whole and grown past the row bound', [['stream', SPARSE], ['materialize', { chunks: 100, rows: 200_000, batches: 4 }]], 'stream'],
  ['run whole and grown wide', [['stream', SPARSE], ['materialize', { chunks: 6, rows: 12_000, batches: 9 }]], 'stream'],
  ['full chunks', [['stream', { chunks: 40, rows: 80_000, batches: 2 }]], 'stream'],
  ['too few chunks to matter', [['stream', { chunks: 3, rows: 3, batches: 1 }]], 'stream'],
  ['one chunk: nothing to overlap', [['stream', { chunks: 1, rows: 1, batches: 1 }]], 'materialize'],
  ['one full chunk', [['stream', { chunks: 1, rows: 2048, batches: 1 }]], 'materialize'],
  ['no rows', [['stream', { chunks: 0, rows: 0, batches: 0 }]], 'materialize'],
  ['two chunks', [['stream', { chunks: 2, rows: 4096, batches: 1 }]], 'stream'],
  ['sparse but many rows (memory stays bounded)', [['stream', { chunks: 5_000, rows: 500_000, batches: 8 }]], 'stream'],
  ['few rows but many bytes', [['stream', { chunks: 600, rows: 12_000, batches: 9 }]], 'stream'],
];

test('a small, sparse or single-chunk streamed result runs whole next time; a whole result that grew large streams again', (t) => {
  for (const [name, runs, expected] of CASES) {
    const modes = new ResultModes();
    for (const [mode, seen] of runs) modes.learn('SELECT 1', mode, seen);
    t.is(modes.modeFor('SELECT 1'), expected, name);
  }
});

test('a selective query answers the same rows streamed and then whole, and the engine switches modes as its result changes', async (t) => {
  await withRuntime(t, { manifest: 'datasets: []\n' }, async ({ runtime, sql }) => {
    await runtime.engine.runInternal('CREATE TABLE main.sparse AS SELECT range AS id, hash(range) % 1000 AS h FROM range(300000)');
    const query = 'SELECT id FROM sparse WHERE h = 7 ORDER BY id';
    const ask = async () => (await (await sql(query, { accept: 'application/json', headers: { 'cache-control': 'no-cache' } })).json()) as Array<{ id: number }>;
    t.is(runtime.engine.resultMode(query), 'stream');
    const streamed = await ask();
    t.true(streamed.length > 100 && streamed.length < 1_000, `${streamed.length} rows`);
    // ORDER BY gathers the rows before the first chunk: DuckDB hands them out packed, not sparse,
    // here in one chunk, which is computed whole next time too; its chunk is read where it is.
    t.is(runtime.engine.resultMode(query), 'materialize');
    t.deepEqual(await ask(), streamed);

    const unordered = 'SELECT id FROM sparse WHERE h = 7';
    const askUnordered = async () => ((await (await sql(unordered, { accept: 'application/json', headers: { 'cache-control': 'no-cache' } })).json()) as Array<{ id: number }>).map((row) => row.id).sort((a, b) => a - b);
    const first = await askUnordered();
    t.is(runtime.engine.resultMode(unordered), 'materialize', 'a few rows per chunk scanned: computed whole next time');
    const second = await askUnordered();
    t.deepEqual(second, first);
    t.deepEqual(first, streamed.map((row) => row.id));

    await runtime.engine.runInternal('INSERT INTO main.sparse SELECT 1000000 + range, 7 FROM range(150000)');
    t.is((await askUnordered()).length, first.length + 150_000, 'the whole result has every row');
    t.is(runtime.engine.resultMode(unordered), 'stream', 'too large to compute whole: streamed again');
  });
});
