import type { ConnectionOptions, RefreshMode } from '../arguments.js';
import { requireHttpEndpoint } from '../endpoint.js';
import { EXIT_OK } from '../errors.js';
import { refreshDataset } from '../http/admin-client.js';
import { writeTo, type CliIo } from '../output.js';
import { createHttpClient } from '../transport/create-transport.js';

export interface RefreshCommandOptions {
  connection: ConnectionOptions;
  dataset: string;
  refreshSql: string | undefined;
  refreshMode: RefreshMode | undefined;
}

/** `quarry refresh DATASET`: triggers an acceleration refresh and prints the runtime's answer. */
export async function runRefreshCommand(options: RefreshCommandOptions, io: CliIo): Promise<number> {
  requireHttpEndpoint(options.connection.endpoint, 'refresh');
  const client = createHttpClient(options.connection);
  try {
    const mode = options.refreshMode ? ` with ${options.refreshMode} mode` : '';
    await writeTo(io.stdout, `Refreshing dataset ${options.dataset}${mode} ...\n`);
    const message = await refreshDataset(client, options.dataset, { refreshSql: options.refreshSql, refreshMode: options.refreshMode });
    await writeTo(io.stdout, `${message}\n`);
    return EXIT_OK;
  } finally {
    client.close();
  }
}
