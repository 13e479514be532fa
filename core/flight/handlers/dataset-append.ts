import type { RecordBatch, Schema } from 'apache-arrow';
import { QuarryError } from '../../errors/quarry-error.js';
import type { Principal } from '../../pipeline/types.js';
import type { FlightContext } from '../flight-context.js';

/**
 * Appends uploaded batches to an accelerated dataset declared `access: read_write`. The
 * engine writes in one transaction and fires `cache.invalidate`; the check here refuses
 * before the first batch is read, with the engine's own reason.
 */
export async function appendToDataset(
  context: FlightContext,
  dataset: string,
  upload: { schema: Schema; batches: AsyncIterable<RecordBatch> },
  options: { principal: Principal; signal: AbortSignal },
): Promise<number> {
  const refusal = context.engine.writeRefusal(dataset);
  if (refusal) {
    const config = context.manifest.datasets.find((candidate) => candidate.name.toLowerCase() === dataset.toLowerCase());
    throw new QuarryError(config?.access === 'read_write' ? 'DATASET_NOT_ACCELERATED' : 'WRITE_NOT_ALLOWED', refusal);
  }
  const { rows } = await context.engine.append(dataset, upload.schema, upload.batches, options);
  return rows;
}
