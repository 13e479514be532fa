// Entry point of the `quarry` client (bin/quarry.js imports the built copy of this file).
import { runCli } from './run-cli.js';

// `quarry sql -e ... | head` closes the pipe early; that is the reader's choice, not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

// exitCode rather than process.exit(): output still buffered for a pipe gets written first.
process.exitCode = await runCli(process.argv.slice(2), {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
});
