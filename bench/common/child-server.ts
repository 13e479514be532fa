import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { repositoryRoot } from './server.js';

/** A bench's helper server (a TypeScript file run through tsx) that prints its port on stdout. */
export async function startChild(script: string, ...args: string[]): Promise<{ child: ChildProcess; baseUrl: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(repositoryRoot, script), ...args], { cwd: repositoryRoot, stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolve, reject) => {
    child.stdout!.once('data', (chunk: Buffer) => resolve(chunk.toString().trim()));
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  return { child, baseUrl: `http://127.0.0.1:${port}` };
}

export function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}
