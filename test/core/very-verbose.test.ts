import test from 'ava';
import { QUERY_STAGES } from '../../core/pipeline/query-stages.js';
import { startDaemon } from '../helpers/daemon.js';
import { QUICKSTART_MANIFEST, writeManifestDirectory } from '../helpers/runtime.js';

/**
 * -vv (very_verbose) adds what an operator debugging one request needs beyond -v: a line per
 * query with its statement, rows, cache status and engine and total times, a line per result
 * batch, and how long each plugin's tap took in each hook. -v shows none of them.
 */

async function queryWith(flag: string): Promise<string> {
  const directory = writeManifestDirectory({ manifest: QUICKSTART_MANIFEST, withQuickstartData: true });
  const daemon = await startDaemon([directory, flag]);
  try {
    while ((await fetch(`${daemon.baseUrl}/v1/ready`)).status !== 200) await new Promise((resolve) => setTimeout(resolve, 50));
    // Three texts (each a results-cache miss): see the stage sums below.
    for (const run of [1, 2, 3]) {
      const response = await fetch(`${daemon.baseUrl}/v1/sql`, { method: 'POST', body: `SELECT status, count(*) AS n, ${run} AS run FROM orders GROUP BY status` });
      await response.text();
    }
  } finally {
    daemon.child.kill('SIGTERM');
    await daemon.exited;
  }
  return daemon.output();
}

test('-vv logs each query, each batch and each plugin tap with their times; -v does not', async (t) => {
  const veryVerbose = await queryWith('-vv');
  t.regex(veryVerbose, /TRACE \[query\] query query=\S+ protocol=http principal=anonymous statement=SELECT datasets=orders status=ok rows=6 cache=MISS execution_ms=[\d.]+ total_ms=[\d.]+/);
  // Where the query's time went, by stage: every stage named, and the stages inside the pipeline
  // add up to its total. The total is read a few calls after the last stage ends: a process
  // preempted in between (a busy machine) shows a gap there, so one query of three must add up.
  const lines = veryVerbose.match(/TRACE \[query\] query query=.*/g)!;
  t.is(lines.length, 3, veryVerbose);
  const sums = lines.map((line) => {
    const stage = (name: string) => Number(new RegExp(` ms_${name}=([\\d.]+)`).exec(line)?.[1] ?? Number.NaN);
    for (const name of QUERY_STAGES) t.false(Number.isNaN(stage(name)), `ms_${name} in ${line}`);
    for (const name of ['door_in', 'prepare', 'execute', 'door_out'] as const) t.true(stage(name) > 0, `${name} took time: ${line}`);
    const total = Number(/ total_ms=([\d.]+)/.exec(line)![1]);
    const inside = QUERY_STAGES.filter((name) => name !== 'door_in' && name !== 'after').reduce((sum, name) => sum + stage(name), 0);
    t.true(inside <= total + 0.02, `stages ${inside.toFixed(3)} ms exceed total ${total} ms: ${line}`);
    return { inside, total, line };
  });
  t.true(sums.some(({ inside, total }) => inside >= total - 0.5), `no query's stages add up to its total: ${sums.map(({ inside, total }) => `${inside.toFixed(3)} of ${total}`).join(', ')}`);
  t.regex(veryVerbose, /TRACE \[query\] batch query=\S+ rows=6 bytes=\d+ total_rows=6 at_ms=[\d.]+/);
  t.regex(veryVerbose, /TRACE hook hook=query\.after plugin=task-history ms=[\d.]+/);
  t.regex(veryVerbose, /TRACE hook hook=request plugin=\S+ ms=[\d.]+/);
  const verbose = await queryWith('-v');
  t.notRegex(verbose, / TRACE /);
  t.regex(verbose, / DEBUG /, '-v still has its debug lines');
});
