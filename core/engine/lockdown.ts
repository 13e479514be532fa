import type { AdminConnection } from './admin-connection.js';
import { quoteLiteral } from './sql-text.js';

/**
 * Closes the engine to everything but what the datasets read: file access limited to their
 * paths and directories, external access off, and the configuration locked so no statement
 * can reopen either. Runs once, after the datasets are registered.
 */
export async function lockDown(admin: AdminConnection, allowed: { paths: string[]; directories: string[] }): Promise<void> {
  const list = (values: string[]) => `[${values.map(quoteLiteral).join(', ')}]`;
  await admin.run(`SET allowed_paths = ${list(allowed.paths)}`);
  await admin.run(`SET allowed_directories = ${list(allowed.directories)}`);
  await admin.run('SET enable_external_access = false');
  await admin.run('SET lock_configuration = true');
}
