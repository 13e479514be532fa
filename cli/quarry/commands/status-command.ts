import type { ConnectionOptions } from '../arguments.js';
import { requireHttpEndpoint } from '../endpoint.js';
import { EXIT_OK } from '../errors.js';
import { fetchStatus } from '../http/admin-client.js';
import { writeTo, type CliIo } from '../output.js';
import { escapeControlCharacters } from '../render/box-table.js';
import { renderPlainTable } from '../render/plain-table.js';
import { createHttpClient } from '../transport/create-transport.js';

/** `quarry status`: the runtime's listeners from `GET /v1/status`, as a NAME / ENDPOINT / STATUS table. */
export async function runStatusCommand(connection: ConnectionOptions, io: CliIo): Promise<number> {
  requireHttpEndpoint(connection.endpoint, 'status');
  const client = createHttpClient(connection);
  try {
    const components = await fetchStatus(client);
    const rows = components.map((component) => [component.name, component.endpoint, component.status].map(escapeControlCharacters));
    await writeTo(io.stdout, renderPlainTable(['NAME', 'ENDPOINT', 'STATUS'], rows));
    return EXIT_OK;
  } finally {
    client.close();
  }
}
