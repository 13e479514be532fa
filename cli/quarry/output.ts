/**
 * The process streams the commands use, passed in rather than taken from `process` so
 * tests and the REPL can give their own.
 */
export interface CliIo {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
}

/**
 * Writes and waits while the stream's buffer is full, so streaming a large JSON or CSV
 * result into a slow pipe does not pile the whole result up in memory.
 */
export function writeTo(stream: NodeJS.WritableStream, data: string | Uint8Array): Promise<void> {
  if (stream.write(data)) return Promise.resolve();
  return new Promise((resolve) => stream.once('drain', () => resolve()));
}

/** Red text on a terminal (unless NO_COLOR is set); plain text in pipes and files. */
export function red(text: string, stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): string {
  return stream.isTTY && !env['NO_COLOR'] ? `\u001b[31m${text}\u001b[39m` : text;
}
