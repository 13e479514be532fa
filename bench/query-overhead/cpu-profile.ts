import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { url: string; functionName: string };
}

interface CpuProfile {
  startTime: number;
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/**
 * Where quarryd's JavaScript thread spent its time, from a V8 CPU profile (`node --cpu-prof`):
 * each sample's time goes to the part of the code its top frame is in. The engine's own
 * threads are not in it (DuckDB runs off the JS thread); the bench sets them beside it.
 */
const PARTS: Array<[RegExp, string]> = [
  [/\/dist\/core\/http\/encoders\//, 'Quarry: result encoding (JSON)'],
  [/\/dist\/core\/http\//, 'Quarry: HTTP door (routes, body, send)'],
  [/\/dist\/core\/pipeline\//, 'Quarry: pipeline (admission, classify, hooks)'],
  [/\/dist\/core\/engine\//, 'Quarry: engine wrapper (prepare, stream, convert)'],
  [/\/dist\/core\/hooks\//, 'Quarry: hook guard'],
  [/\/dist\/core\//, 'Quarry: other core'],
  [/\/dist\/plugins\/([\w-]+)\//, 'plugin $1'],
  [/node_modules\/(fastify|find-my-way|light-my-request|avvio|@fastify\/[\w-]+|fastify-plugin|secure-json-parse|fast-json-stringify|pino[\w-]*)\//, 'fastify'],
  [/node_modules\/@duckdb\//, '@duckdb/node-api (JS side)'],
  [/node_modules\/apache-arrow\//, 'apache-arrow'],
  [/node_modules\/tapable\//, 'tapable'],
  [/node_modules\/@opentelemetry\//, 'OpenTelemetry SDK'],
  [/node_modules\/lru-cache\//, 'lru-cache'],
  [/node_modules\/([@\w.-]+)\//, 'dependency $1'],
  [/^node:|^internal\/|^(_http|net|events|stream|buffer|timers)/, 'Node.js (http, streams, timers)'],
];

function partOf(node: ProfileNode): string | undefined {
  const { url, functionName } = node.callFrame;
  if (functionName === '(idle)') return undefined;
  if (functionName === '(program)') return 'native (V8, libuv, N-API calls)';
  if (functionName === '(garbage collector)') return 'garbage collection';
  if (url === '') return 'native (V8 builtins, bindings)';
  for (const [pattern, name] of PARTS) {
    const match = pattern.exec(url);
    if (match) return name.replace('$1', match[1] ?? '');
  }
  return 'other';
}

/**
 * Milliseconds of JS-thread time by part, in the profile(s) written to `directory`, counting
 * only samples taken within `window` (microseconds of the monotonic clock, which V8's sample
 * times and `process.hrtime` of any process on the machine share): start-up is left out.
 */
export function profileBreakdown(directory: string, window: { fromMicros: number; toMicros: number }): Map<string, number> {
  const totals = new Map<string, number>();
  for (const file of readdirSync(directory).filter((name) => name.endsWith('.cpuprofile'))) {
    const profile = JSON.parse(readFileSync(path.join(directory, file), 'utf8')) as CpuProfile;
    const byId = new Map(profile.nodes.map((node) => [node.id, node]));
    let at = profile.startTime;
    for (let index = 0; index < profile.samples.length; index++) {
      at += profile.timeDeltas[index] ?? 0;
      if (at < window.fromMicros || at > window.toMicros) continue;
      const part = partOf(byId.get(profile.samples[index]!)!);
      if (part === undefined) continue;
      totals.set(part, (totals.get(part) ?? 0) + (profile.timeDeltas[index] ?? 0) / 1000);
    }
  }
  return totals;
}
