import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const created: string[] = [];
// Each ava test file runs in its own process: its temporary directories go when it ends, also
// those of tests that failed before their own clean-up.
process.on('exit', () => {
  for (const directory of created) rmSync(directory, { recursive: true, force: true });
});

/** A fresh directory under the system's temporary folder, removed when the test process exits. */
export function temporaryDirectory(prefix: string): string {
  const directory = mkdtempSync(path.join(tmpdir(), prefix));
  created.push(directory);
  return directory;
}
