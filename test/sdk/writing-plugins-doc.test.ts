import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import { ensureExamplePackage, EXAMPLE_PACKAGE } from '../helpers/example-package.js';
import { repositoryRoot } from '../helpers/runtime.js';

/** docs/plugins/writing-plugins.md shows complete example files: they must be the files the suite type-checks and runs. */
const GUIDE = path.join(repositoryRoot, 'docs', 'plugins', 'writing-plugins.md');
const run = promisify(execFile);

test('every file the guide shows is the example file, byte for byte', (t) => {
  const guide = readFileSync(GUIDE, 'utf8');
  const blocks = [...guide.matchAll(/^```ts file=(\S+)\n([\s\S]*?)^```$/gm)];
  t.deepEqual(
    blocks.map((block) => block[1]),
    ['examples/plugins/team-token-auth.ts', 'examples/plugins/memory-cache.ts', 'examples/plugins/query-log.ts', 'examples/plugins/whoami-route.ts', 'examples/plugins/try-in-process.ts'],
  );
  for (const [, file, shown] of blocks) t.is(shown, readFileSync(path.join(repositoryRoot, file!), 'utf8'), `${file} differs from the guide`);
});

test('the guide\'s in-process test runs against the built quarry', async (t) => {
  await ensureExamplePackage();
  const { stdout } = await run(process.execPath, ['--import', 'tsx', path.join(EXAMPLE_PACKAGE, 'try-in-process.ts')], { cwd: EXAMPLE_PACKAGE });
  t.regex(stdout, /team-token-auth: refused without a token, answered with one/);
});
