import { parseJsonBody } from '../json-body.js';
import type { FastifyInstance } from 'fastify';
import type { DatasetStatus } from '../../engine/engine-api.js';
import { parseRefreshOverrides } from '../../engine/acceleration/refresh-options.js';
import { QuarryError } from '../../errors/quarry-error.js';
import { formatDuration } from '../../units.js';
import { toCsv } from '../small-csv.js';
import type { RouteContext } from './context.js';

const stateNames: Record<DatasetStatus['state'], string> = {
  initializing: 'Initializing',
  ready: 'Ready',
  disabled: 'Disabled',
  error: 'Error',
  refreshing: 'Refreshing',
  shutting_down: 'ShuttingDown',
};

function describe(dataset: DatasetStatus) {
  const acceleration = dataset.acceleration;
  return {
    name: dataset.name,
    from: dataset.from,
    description: dataset.description ?? null,
    status: stateNames[dataset.state],
    error: dataset.error ?? null,
    // Why a dataset is not registered yet (its source's columns); null once it is.
    waiting_for: dataset.waitingFor ?? null,
    // Spice's field: replication to the Spice Cloud Platform, which Quarry does not do.
    replication_enabled: false,
    acceleration_enabled: dataset.accelerated,
    acceleration: acceleration
      ? {
          enabled: acceleration.enabled,
          engine: acceleration.engine,
          mode: acceleration.mode,
          refresh_check_interval: acceleration.refresh_check_interval === undefined ? null : formatDuration(acceleration.refresh_check_interval),
        }
      : null,
    loaded_at: dataset.loadedAt ?? null,
    // The load or refresh running now (rows and bytes so far, totals, rate, ETA); null when none runs.
    progress: dataset.progress ?? null,
    // The last load or refresh that finished: rows written, bytes read, how long it took.
    last_load: dataset.lastLoad ?? null,
    // Accelerated but not loaded yet: queries naming it are answered by the source meanwhile.
    served_from: dataset.accelerated ? (dataset.servedFromSource ? 'source' : 'acceleration') : 'source',
  };
}

/** `GET /v1/datasets`, `POST /v1/datasets/:name/acceleration/refresh` and `PATCH /v1/datasets/:name/acceleration`. */
export function registerDatasetRoutes(app: FastifyInstance, context: RouteContext): void {
  app.get<{ Querystring: { format?: string; source?: string; status?: string } }>('/v1/datasets', async (request, reply) => {
    const { source, status } = request.query;
    if (status !== undefined && status !== 'true' && status !== 'false') {
      throw new QuarryError('REQUEST_INVALID', `status must be true or false, got "${status}" (the status field is always included)`);
    }
    const datasets = context.engine.datasets().filter((dataset) => source === undefined || fromSource(dataset.from) === source.toLowerCase() || dataset.from === source).map(describe);
    if (request.query.format === 'csv') {
      return reply
        .type('text/csv; charset=utf-8')
        .send(toCsv(['name', 'from', 'status', 'error', 'acceleration_enabled'], datasets.map((d) => [d.name, d.from, d.status, d.error, d.acceleration_enabled])));
    }
    return reply.type('application/json; charset=utf-8').send(datasets);
  });

  // As in Spice: the dataset's refresh_sql for every later refresh, until restart; nothing is reloaded now.
  app.patch<{ Params: { name: string } }>('/v1/datasets/:name/acceleration', { config: { write: true } }, async (request, reply) => {
    const status = context.engine.setRefreshSql(request.params.name, refreshSqlOf(jsonBody(request.body)));
    return reply.type('application/json; charset=utf-8').send({ message: `Dataset ${status.name} refresh_sql updated; it applies from the next refresh.`, dataset: describe(status) });
  });

  // Optional JSON body: {"refresh_sql": "...", "refresh_mode": "full" | "append"} overrides this refresh only.
  app.post<{ Params: { name: string } }>('/v1/datasets/:name/acceleration/refresh', { config: { write: true } }, async (request, reply) => {
    const status = await context.engine.refresh(request.params.name, parseRefreshOverrides(jsonBody(request.body)));
    return reply.status(201).type('application/json; charset=utf-8').send({
      message: `Dataset ${status.name} refreshed.`,
      dataset: describe(status),
    });
  });
}

/**
 * The source `?source=` filters by, as in Spice: the scheme of `from` (`postgres` for
 * `postgres:public.orders`, `file` for `file:data/orders.parquet`, `s3` for `s3://...`).
 */
function fromSource(from: string): string {
  const colon = from.indexOf(':');
  return (colon === -1 ? from : from.slice(0, colon)).toLowerCase();
}

/** The body of `PATCH /v1/datasets/{name}/acceleration`: `{"refresh_sql": "..."}`. */
function refreshSqlOf(value: unknown): string {
  const record = value as Record<string, unknown> | undefined;
  const unknown = record && typeof record === 'object' && !Array.isArray(record) ? Object.keys(record).filter((key) => key !== 'refresh_sql') : [];
  if (!record || typeof record !== 'object' || Array.isArray(record) || typeof record.refresh_sql !== 'string' || record.refresh_sql.trim() === '' || unknown.length > 0) {
    throw new QuarryError('DATASET_REFRESH_INVALID', `send {"refresh_sql": "SELECT * FROM <dataset> WHERE ..."}${unknown.length > 0 ? `; unknown field${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}` : ''}`);
  }
  return record.refresh_sql;
}

/** What the refresh routes accept, for their body errors. */
const REFRESH_BODY = 'send {"refresh_sql": "...", "refresh_mode": "full" | "append"} or no body';

function jsonBody(body: unknown): unknown {
  return parseJsonBody(body, 'refresh', REFRESH_BODY);
}
