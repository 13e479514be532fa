import { QuarryError } from '../../errors/quarry-error.js';
import { requireCommand } from '../flight-commands.js';
import type { FlightContext } from '../flight-context.js';
import { FlightDescriptor_DescriptorType, type FlightDescriptor } from '../generated/arrow/flight/protocol/flight_pb.js';
import {
  CommandStatementIngest_TableDefinitionOptions_TableExistsOption as TableExists,
  CommandStatementIngest_TableDefinitionOptions_TableNotExistOption as TableNotExist,
  type CommandStatementIngest,
} from '../generated/arrow/flight/protocol/sql/flight_sql_pb.js';
import { datasetOfPath } from './flight-plan.js';

/** What a DoPut stream is for, decided from its first message's descriptor. */
export type PutTarget =
  | { readonly kind: 'update'; readonly sql: string }
  | { readonly kind: 'prepared-update'; readonly handle: Uint8Array }
  | { readonly kind: 'bind-parameters'; readonly handle: Uint8Array }
  | { readonly kind: 'append'; readonly dataset: string };

/** Binding parameters only reads; every other DoPut writes and needs a caller that may write. */
export function putWrites(target: PutTarget): boolean {
  return target.kind !== 'bind-parameters';
}

export function putTarget(context: FlightContext, descriptor: FlightDescriptor): PutTarget {
  if (descriptor.type === FlightDescriptor_DescriptorType.PATH) return { kind: 'append', dataset: datasetOfPath(context, descriptor.path) };
  if (descriptor.type !== FlightDescriptor_DescriptorType.CMD) {
    throw new QuarryError('FLIGHT_COMMAND_INVALID', 'the DoPut descriptor has no type: use CMD with a Flight SQL command, or PATH naming a dataset to append to');
  }
  const command = requireCommand(descriptor.cmd, 'the DoPut descriptor');
  const noTransaction = (transactionId: Uint8Array | undefined) => {
    if (transactionId !== undefined) throw new QuarryError('FLIGHT_COMMAND_UNSUPPORTED', 'Flight SQL transactions are not supported: send the command without a transaction_id');
  };
  switch (command.name) {
    case 'CommandStatementUpdate':
      noTransaction(command.message.transactionId);
      return { kind: 'update', sql: command.message.query };
    case 'CommandPreparedStatementUpdate':
      return { kind: 'prepared-update', handle: command.message.preparedStatementHandle };
    case 'CommandPreparedStatementQuery':
      return { kind: 'bind-parameters', handle: command.message.preparedStatementHandle };
    case 'CommandStatementIngest':
      noTransaction(command.message.transactionId);
      return { kind: 'append', dataset: ingestDataset(context, command.message) };
    case 'CommandStatementSubstraitPlan':
      throw new QuarryError('FLIGHT_COMMAND_UNSUPPORTED', 'Substrait plans are not supported: send SQL (CommandStatementUpdate)');
    default:
      throw new QuarryError('FLIGHT_COMMAND_INVALID', `${command.name} is not a DoPut command (DoPut takes CommandStatementUpdate, CommandPreparedStatementUpdate, CommandPreparedStatementQuery or CommandStatementIngest)`);
  }
}

/**
 * Bulk ingest appends into an existing dataset, nothing else: the table must name a
 * manifest dataset (optionally as schema + table, in catalog `memory`), and the options
 * must allow appending to a table that exists (ADBC's `append` mode).
 */
function ingestDataset(context: FlightContext, command: CommandStatementIngest): string {
  if (command.temporary) {
    throw new QuarryError('FLIGHT_COMMAND_INVALID', 'temporary tables are not supported: ingest appends into an existing dataset (temporary = false)');
  }
  const options = command.tableDefinitionOptions;
  if (options && options.ifExists !== TableExists.APPEND) {
    const given = TableExists[options.ifExists] ?? String(options.ifExists);
    throw new QuarryError('FLIGHT_COMMAND_INVALID', `table_definition_options.if_exists = ${given} is not supported: Quarry only appends into existing datasets (use TABLE_EXISTS_OPTION_APPEND, ADBC ingest mode "append")`);
  }
  if (command.catalog !== undefined && command.catalog !== '' && command.catalog.toLowerCase() !== 'memory') {
    throw new QuarryError('DATASET_NOT_FOUND', `no catalog "${command.catalog}": datasets live in catalog "memory"`);
  }
  const schema = command.schema && command.schema.toLowerCase() !== 'main' ? command.schema : undefined;
  const name = schema ? `${schema}.${command.table}` : command.table;
  const dataset = context.engine.datasetNames().find((candidate) => candidate.toLowerCase() === name.toLowerCase());
  if (!dataset) {
    const createHint = options?.ifNotExist === TableNotExist.CREATE ? ' (Quarry does not create tables: declare the dataset in the manifest with access: read_write)' : '';
    throw new QuarryError('DATASET_NOT_FOUND', `no dataset "${name}" to ingest into${createHint}; datasets: ${context.engine.datasetNames().join(', ') || 'none'}`);
  }
  return dataset;
}
