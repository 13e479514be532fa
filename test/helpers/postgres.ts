import { execFile } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port.js';

const run = promisify(execFile);

/** Debian's PostgreSQL 15 server binaries (`.ci/run` installs the postgresql package). */
export const POSTGRES_BIN = process.env['QUARRY_POSTGRES_BIN'] ?? '/usr/lib/postgresql/15/bin';

export interface PostgresServer {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly database: string;
  stop(): Promise<void>;
}

/**
 * Starts a throwaway PostgreSQL server on a free loopback port in a temp directory: initdb
 * with trust auth (loopback only), no fsync, then pg_ctl start -w. initdb refuses to run as
 * root, so as root the directory is given to the `postgres` user and the tools run via runuser.
 */
export async function startPostgres(): Promise<PostgresServer> {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'quarry-pg-'));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: group } = await run('id', ['-g', 'postgres']);
    chownSync(directory, Number(stdout.trim()), Number(group.trim()));
  }
  const tool = (name: string, args: string[]) =>
    asRoot ? run('runuser', ['-u', 'postgres', '--', path.join(POSTGRES_BIN, name), ...args]) : run(path.join(POSTGRES_BIN, name), args);
  const data = path.join(directory, 'data');
  const port = await freePort();
  try {
    await tool('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--locale', 'C']);
    const options = `-p ${port} -k ${directory} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c ssl=off`;
    await tool('pg_ctl', ['-D', data, '-o', options, '-l', path.join(directory, 'server.log'), '-w', '-t', '60', 'start']);
  } catch (error) {
    rmSync(directory, { recursive: true, force: true });
    throw new Error(`could not start PostgreSQL from ${POSTGRES_BIN}: ${(error as { stderr?: string }).stderr ?? (error as Error).message}`);
  }
  return {
    host: '127.0.0.1',
    port,
    user: 'postgres',
    database: 'postgres',
    async stop() {
      await tool('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
