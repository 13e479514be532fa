import { spawnSync } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import test from 'ava';
import { openAcceptLanes } from '../../core/listeners/accept-lanes.js';
import { QUICKSTART_MANIFEST, withRuntime } from '../helpers/runtime.js';

/**
 * Opens `count` connections to `port` from another process while this one's event loop is held
 * (spawnSync), so all of them wait in the listening socket's accept queue at once; then counts
 * how many the server accepted in each following turn of the loop (one setImmediate per turn).
 */
async function acceptedPerTurn(server: net.Server, port: number, count: number): Promise<number[]> {
  let accepted = 0;
  server.on('connection', () => accepted++);
  const opener = `const net=require('net');let open=0;const all=[];for(let i=0;i<${count};i++){const s=net.connect(${port},'127.0.0.1',()=>{if(++open===${count}){console.log('open');setTimeout(()=>process.exit(0),50)}});all.push(s)}`;
  const opened = spawnSync(process.execPath, ['-e', opener], { encoding: 'utf8', timeout: 30_000 });
  if (opened.stdout.trim() !== 'open') throw new Error(`the connections were not opened: ${opened.stderr}`);
  const turns: number[] = [];
  let before = accepted;
  while (accepted < count && turns.length < count + 5) {
    await new Promise((resolve) => setImmediate(resolve));
    turns.push(accepted - before);
    before = accepted;
  }
  return turns;
}

test('without lanes a listening server accepts one waiting connection per turn of the loop (libuv): the behaviour lanes exist for', async (t) => {
  const server = http.createServer((_request, response) => response.end('ok'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const turns = await acceptedPerTurn(server, (server.address() as net.AddressInfo).port, 16);
  t.is(turns.reduce((sum, n) => sum + n, 0), 16);
  t.true(Math.max(...turns) <= 1, `accepted per turn: ${turns.join(' ')}`);
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

test('with seven lanes the server accepts up to eight waiting connections per turn, and serves and closes them as its own', async (t) => {
  const server = http.createServer((_request, response) => response.end('ok'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  const closeLanes = openAcceptLanes(server, 7);
  const turns = await acceptedPerTurn(server, port, 16);
  t.is(turns.reduce((sum, n) => sum + n, 0), 16);
  t.true(turns.filter((n) => n > 0).length <= 4, `16 connections accepted within 4 turns (accepted per turn: ${turns.join(' ')})`);
  t.true(Math.max(...turns) > 1);
  // Requests on connections the lanes accepted are the server's: answered, and closed by it.
  const answers = await Promise.all(Array.from({ length: 20 }, () => fetch(`http://127.0.0.1:${port}/`, { headers: { connection: 'close' } }).then((response) => response.text())));
  t.deepEqual(new Set(answers), new Set(['ok']));
  server.closeAllConnections();
  await Promise.all([new Promise((resolve) => server.close(resolve)), closeLanes()]);
  // Every descriptor of the socket is closed: the port is free again.
  const again = net.createServer();
  await new Promise<void>((resolve, reject) => again.once('error', reject).listen(port, '127.0.0.1', resolve));
  await new Promise((resolve) => again.close(resolve));
});

test('the runtime\'s HTTP listener has its lanes, and stopping the runtime frees its port', async (t) => {
  let port = 0;
  await withRuntime(t, { manifest: QUICKSTART_MANIFEST, withQuickstartData: true }, async ({ runtime, baseUrl }) => {
    port = Number(new URL(baseUrl).port);
    const turns = await acceptedPerTurn(runtime.http.server, port, 16);
    t.true(turns.filter((n) => n > 0).length <= 4, `accepted per turn: ${turns.join(' ')}`);
    const response = await fetch(`${baseUrl}/v1/sql`, { method: 'POST', body: 'SELECT 41 + 1 AS answer' });
    t.deepEqual(await response.json(), [{ answer: 42 }]);
  });
  const again = net.createServer();
  await new Promise<void>((resolve, reject) => again.once('error', reject).listen(port, '127.0.0.1', resolve));
  await new Promise((resolve) => again.close(resolve));
});
