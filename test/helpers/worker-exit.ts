// Loaded by ava into every test worker (package.json "ava.require").
//
// AVA ends a worker only when its event loop empties after the last test. A handle a test
// leaves open (a child process's pipe, a socket, a timer) keeps the worker alive until
// ava's inactivity timeout fires, and that timeout fails the whole run without a TAP line
// or a test name: every test `ok`, `# fail 0`, exit status 1. So once ava is done with a
// file, a worker still alive after a grace period names what kept it open (on stderr,
// which ava passes through) and exits. The grace timer is unref'd: a clean worker exits
// at once, without waiting for it.
import test, { registerCompletionHandler } from 'ava';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const GRACE_MILLISECONDS = 10_000;

const testFile = relative(process.cwd(), fileURLToPath(test.meta.file));

registerCompletionHandler(() => {
  const timer = setTimeout(() => {
    // The worker's own stdio shows as three PipeWrap; this grace timer is unref'd, not listed.
    const open = process.getActiveResourcesInfo();
    process.stderr.write(
      `worker-exit: ${testFile} still had ${open.join(', ') || 'nothing Node lists (native work?)'} open ` +
        `${GRACE_MILLISECONDS / 1000} s after its tests finished; ending the worker\n`,
    );
    process.exit(0);
  }, GRACE_MILLISECONDS);
  timer.unref();
});
