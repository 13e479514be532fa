/**
 * tls-reload: keep-alive HTTPS clients (and clients opening a new connection per request)
 * post `/v1/sql` to quarryd without pause while its certificate files are rotated ten times,
 * each followed by SIGHUP. Reports failed requests (target 0) and how long after SIGHUP a
 * new connection is shown the new certificate, on the HTTP and the Flight listener.
 * Baselines from the same run: the same load for the same time with no rotation, and the
 * same rotations with no load.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { createTestPki, type IssuedCertificate } from '../../test/helpers/certificates.js';
import { serverCommonName } from '../../test/helpers/tls-clients.js';
import { median, quarrydEntry, repositoryRoot } from '../common/server.js';

const ROTATIONS = 10;
const ROTATION_INTERVAL_MS = 600;
const KEEP_ALIVE_CLIENTS = 16;
const NEW_CONNECTION_CLIENTS = 4;
const QUERY = 'SELECT count(*) AS n, sum(id) AS total FROM range(1000) t(id)';

const pki = createTestPki();
const directory = mkdtempSync(path.join(os.tmpdir(), 'quarry-tls-reload-'));
const file = (name: string) => path.join(directory, name);
const replace = (name: string, content: string) => {
  writeFileSync(file(`${name}.next`), content);
  renameSync(file(`${name}.next`), file(name));
};
replace('cert.pem', pki.server.cert);
replace('key.pem', pki.server.key);
writeFileSync(file('quarry.yaml'), `version: v2
kind: Spicepod
name: tls-reload
runtime:
  tls:
    enabled: true
    certificate_file: cert.pem
    key_file: key.pem
`);

interface Daemon {
  child: ChildProcess;
  http: string;
  flight: string;
}

async function startDaemon(): Promise<Daemon> {
  const child = spawn(process.execPath, [...quarrydEntry(), directory, '--http', '127.0.0.1:0', '--flight', '127.0.0.1:0'], {
    cwd: repositoryRoot,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  return new Promise((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      log += chunk.toString();
      const http = /HTTP listening endpoint=https:\/\/([\d.:]+)/.exec(log)?.[1];
      const flight = /Flight listening endpoint=grpc\+tls:\/\/([\d.:]+)/.exec(log)?.[1];
      if (http && flight) resolve({ child, http, flight });
    });
    child.on('exit', (code) => reject(new Error(`quarryd exited with ${code}:\n${log}`)));
  });
}

interface Load {
  ok: number;
  failed: number;
  errors: Map<string, number>;
  stop(): Promise<void>;
}

/** Client loops posting QUERY until stopped; keep-alive ones share an agent, the others handshake every time. */
function startLoad(endpoint: string): Load {
  const agent = new Agent({ keepAlive: true, maxSockets: KEEP_ALIVE_CLIENTS, ca: pki.ca.cert });
  const load: Load = { ok: 0, failed: 0, errors: new Map(), stop: async () => undefined };
  let running = true;
  const post = (keepAlive: boolean) =>
    new Promise<void>((resolve) => {
      const options = keepAlive ? { agent } : { agent: false as const, ca: pki.ca.cert };
      const call = request(`https://${endpoint}/v1/sql`, { method: 'POST', servername: 'localhost', ...options }, (response) => {
        response.resume();
        response.on('end', () => {
          if (response.statusCode === 200) load.ok += 1;
          else fail(`HTTP ${response.statusCode}`);
          resolve();
        });
      });
      const fail = (why: string) => {
        load.failed += 1;
        load.errors.set(why, (load.errors.get(why) ?? 0) + 1);
      };
      call.on('error', (error) => {
        fail((error as NodeJS.ErrnoException).code ?? error.message);
        resolve();
      });
      call.end(QUERY);
    });
  const loop = async (keepAlive: boolean) => {
    while (running) await post(keepAlive);
  };
  const loops = [
    ...Array.from({ length: KEEP_ALIVE_CLIENTS }, () => loop(true)),
    ...Array.from({ length: NEW_CONNECTION_CLIENTS }, () => loop(false)),
  ];
  load.stop = async () => {
    running = false;
    await Promise.all(loops);
    agent.destroy();
  };
  return load;
}

/** Milliseconds from `since` until a new connection to `endpoint` is shown `commonName`. */
async function timeUntilPresented(endpoint: string, alpn: string[], commonName: string, since: number): Promise<number> {
  for (;;) {
    if ((await serverCommonName(endpoint, pki.ca.cert, alpn)) === commonName) return performance.now() - since;
    if (performance.now() - since > 10_000) throw new Error(`${endpoint} still shows the old certificate after 10 s`);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const commonNameOf = (certificate: IssuedCertificate) => (certificate === pki.server ? 'localhost' : 'quarry-rotated');

/** Rotates the files and sends SIGHUP `count` times; returns ms until new HTTP and Flight connections see each new certificate. */
async function rotate(daemon: Daemon, count: number, first: number): Promise<{ http: number[]; flight: number[] }> {
  const times = { http: [] as number[], flight: [] as number[] };
  for (let rotation = first; rotation < first + count; rotation++) {
    await sleep(ROTATION_INTERVAL_MS / 2);
    const next = rotation % 2 === 1 ? pki.rotatedServer : pki.server;
    replace('cert.pem', next.cert);
    replace('key.pem', next.key);
    const sent = performance.now();
    daemon.child.kill('SIGHUP');
    const [http, flight] = await Promise.all([
      timeUntilPresented(daemon.http, ['http/1.1'], commonNameOf(next), sent),
      timeUntilPresented(daemon.flight, ['h2'], commonNameOf(next), sent),
    ]);
    times.http.push(http);
    times.flight.push(flight);
    await sleep(ROTATION_INTERVAL_MS / 2);
  }
  return times;
}

const daemon = await startDaemon();
let idle: { http: number[]; flight: number[] };
let loaded: { http: number[]; flight: number[] };
let baseline: Load;
let rotated: Load;
let seconds: number;
try {
  await sleep(300); // JIT and first connections outside the measurement
  idle = await rotate(daemon, ROTATIONS, 1);

  baseline = startLoad(daemon.http);
  await sleep(ROTATIONS * ROTATION_INTERVAL_MS);
  await baseline.stop();

  rotated = startLoad(daemon.http);
  const started = performance.now();
  loaded = await rotate(daemon, ROTATIONS, ROTATIONS + 1);
  seconds = (performance.now() - started) / 1000;
  await rotated.stop();
} finally {
  daemon.child.kill('SIGTERM');
  await new Promise((resolve) => daemon.child.once('exit', resolve));
  rmSync(directory, { recursive: true, force: true });
  pki.remove();
}

const fmt = (values: number[]) => `median ${median(values).toFixed(1).padStart(5)} ms, max ${Math.max(...values).toFixed(1).padStart(5)} ms`;
const total = (load: Load) => load.ok + load.failed;
const errors = (load: Load) => (load.errors.size ? `: ${[...load.errors].map(([why, n]) => `${why} ×${n}`).join(', ')}` : '');
const baselineSeconds = (ROTATIONS * ROTATION_INTERVAL_MS) / 1000;
console.log(`tls-reload: ${ROTATIONS} certificate rotations (file swap + SIGHUP) under load; POST /v1/sql over TLS from`);
console.log(`  ${KEEP_ALIVE_CLIENTS} keep-alive clients and ${NEW_CONNECTION_CLIENTS} clients opening a new connection per request`);
console.log(`  failed requests during rotations  ${rotated.failed} of ${total(rotated)} (target 0)${errors(rotated)}`);
console.log(`  throughput during rotations       ${(total(rotated) / seconds).toFixed(0)} req/s`);
console.log(`  baseline, same load, no rotation  ${(total(baseline) / baselineSeconds).toFixed(0)} req/s, ${baseline.failed} failed${errors(baseline)}`);
console.log('  time from SIGHUP until a new connection is shown the new certificate:');
console.log(`    under load   HTTP   ${fmt(loaded.http)}   Flight ${fmt(loaded.flight)}`);
console.log(`    idle         HTTP   ${fmt(idle.http)}   Flight ${fmt(idle.flight)}`);
