import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { flightEndpointOf, startDaemon } from '../helpers/daemon.js';
import { repositoryRoot } from '../helpers/runtime.js';

/**
 * Docs say only what is true: every shell block marked ```sh offline in README.md and docs/
 * runs against a fresh quickstart runtime (quarryd on free ports; the documented default
 * addresses are rewritten to them, in the commands and in the expected lines alike), with
 * bash -e -o pipefail from the repository root, and each `# ` line after a command must
 * appear in what the block prints (a leading `... ` marks elided output).
 */

interface Example {
  readonly where: string;
  readonly script: string;
  readonly expected: string[];
}

function markedExamples(): Example[] {
  const files = ['README.md', ...readdirSync(path.join(repositoryRoot, 'docs'), { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.md')).map((file) => path.join('docs', file))];
  const examples: Example[] = [];
  for (const file of files) {
    const lines = readFileSync(path.join(repositoryRoot, file), 'utf8').split('\n');
    for (let index = 0; index < lines.length; index++) {
      if (lines[index]!.trim() !== '```sh offline') continue;
      const start = index + 1;
      let end = start;
      while (end < lines.length && !lines[end]!.startsWith('```')) end++;
      const body = lines.slice(start, end);
      examples.push({
        where: `${file}:${start}`,
        script: body.filter((line) => !line.startsWith('# ')).join('\n'),
        expected: body.filter((line) => line.startsWith('# ')).map((line) => line.slice(2).replace(/^\.\.\. /, '')),
      });
      index = end;
    }
  }
  return examples;
}

test('every ```sh offline block of README.md and docs/ runs against the quickstart and prints what it shows', async (t) => {
  const examples = markedExamples();
  t.true(examples.length >= 4, `${examples.length} marked blocks`);
  const daemon = await startDaemon([path.join(repositoryRoot, 'examples/quickstart')]);
  t.teardown(async () => {
    daemon.child.kill('SIGTERM');
    await daemon.exited;
  });
  while ((await fetch(`${daemon.baseUrl}/v1/ready`)).status !== 200) await new Promise((resolve) => setTimeout(resolve, 50));
  const http = new URL(daemon.baseUrl).host;
  const flight = (await flightEndpointOf(daemon)).replace(/^grpc:\/\//, '');
  const rewrite = (text: string) =>
    text
      .replaceAll('localhost:8090', http)
      .replaceAll('127.0.0.1:8090', http)
      .replaceAll('127.0.0.1:50051', flight)
      // The client's default endpoints are the documented ports: point it at this runtime.
      .replace(/node bin\/quarry\.js sql /g, `node bin/quarry.js sql --endpoint grpc://${flight} `)
      .replace(/node bin\/quarry\.js (status|refresh)\b/g, `node bin/quarry.js $1 --endpoint http://${http}`);
  for (const example of examples) {
    const run = spawnSync('bash', ['-e', '-o', 'pipefail', '-c', rewrite(example.script)], { cwd: repositoryRoot, encoding: 'utf8', timeout: 120_000 });
    t.is(run.status, 0, `${example.where} exited ${run.status}: ${run.stderr}`);
    const printed = `${run.stdout}${run.stderr}`.replace(/ {2,}/g, ' ');
    for (const line of example.expected) t.true(printed.includes(rewrite(line).replace(/ {2,}/g, ' ')), `${example.where}: "${line}" not in:\n${printed.slice(0, 2000)}`);
  }
});
