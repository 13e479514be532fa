import type { Schema } from 'apache-arrow';
import { QuarryError } from '../../errors/quarry-error.js';
import { quoteQualifiedName } from '../../engine/sql-text.js';
import type { InboundRequest } from '../../pipeline/types.js';
import { decodeCommand, plainSqlText } from '../flight-commands.js';
import type { FlightContext } from '../flight-context.js';
import { packAny } from '../flight-any.js';
import { FlightDescriptor_DescriptorType, type FlightDescriptor } from '../generated/arrow/flight/protocol/flight_pb.js';
import { TicketStatementQuerySchema } from '../generated/arrow/flight/protocol/sql/flight_sql_pb.js';
import { isMetadataCommand, metadataSchema } from '../metadata/metadata-commands.js';
import { describeStatement } from '../statement-schema.js';

/** What GetFlightInfo answers for a descriptor: the result schema and the ticket to redeem. */
export interface FlightPlan {
  readonly schema: Schema;
  /** Undefined for GetSchema, which hands out no ticket. */
  readonly ticket: Uint8Array | undefined;
  /** Tickets that point at a server-side handle stop working at this time. */
  readonly expiresAt: Date | undefined;
}

/** The dataset a PATH descriptor names (`["orders"]` or `["sales", "orders"]`). */
export function datasetOfPath(context: FlightContext, path: readonly string[]): string {
  const wanted = path.join('.').toLowerCase();
  const name = context.engine.datasetNames().find((candidate) => candidate.toLowerCase() === wanted);
  if (!name) {
    throw new QuarryError('DATASET_NOT_FOUND', `no dataset "${path.join('.')}" (datasets: ${context.engine.datasetNames().join(', ') || 'none'})`);
  }
  return name;
}

function noTransactions(transactionId: Uint8Array | undefined): void {
  if (transactionId !== undefined) {
    throw new QuarryError('FLIGHT_COMMAND_UNSUPPORTED', 'Flight SQL transactions are not supported: send the statement without a transaction_id (each statement commits on its own)');
  }
}

/**
 * Resolves a descriptor into a plan. With `issueTicket`, statements get a server-side
 * handle (TicketStatementQuery) capturing the SQL and the parameters bound right now.
 */
export async function planDescriptor(context: FlightContext, descriptor: FlightDescriptor, inbound: InboundRequest, issueTicket: boolean): Promise<FlightPlan> {
  const principalId = inbound.principal.id;
  const statementPlan = async (sql: string, parameters: readonly unknown[], schema?: Schema): Promise<FlightPlan> => {
    const resolved = schema ?? (await describeStatement(context.engine, sql)).datasetSchema;
    if (!issueTicket) return { schema: resolved, ticket: undefined, expiresAt: undefined };
    const handle = context.statements.addPending({ sql, parameters, principalId });
    return {
      schema: resolved,
      ticket: packAny(TicketStatementQuerySchema, { statementHandle: handle }),
      expiresAt: new Date(Date.now() + context.statements.ticketTtlMs),
    };
  };

  if (descriptor.type === FlightDescriptor_DescriptorType.PATH) {
    const dataset = datasetOfPath(context, descriptor.path);
    return statementPlan(`SELECT * FROM ${quoteQualifiedName(dataset)}`, []);
  }
  if (descriptor.type !== FlightDescriptor_DescriptorType.CMD) {
    throw new QuarryError('FLIGHT_COMMAND_INVALID', 'the FlightDescriptor has no type: use CMD with a Flight SQL command, or PATH with a dataset name');
  }
  const command = decodeCommand(descriptor.cmd);
  // Spice's SDKs (spicepy, spice.js) send the SQL text itself as the command: run it as a query, as Spice does.
  if (!command) return statementPlan(plainSqlText(descriptor.cmd, 'FlightDescriptor.cmd'), []);
  switch (command.name) {
    case 'CommandStatementQuery':
      noTransactions(command.message.transactionId);
      return statementPlan(command.message.query, []);
    case 'CommandPreparedStatementQuery': {
      const prepared = context.statements.prepared(command.message.preparedStatementHandle, principalId);
      if (issueTicket && prepared.parameters.length !== prepared.parameterCount) {
        throw new QuarryError('PARAMETERS_INVALID', `the prepared statement has ${prepared.parameterCount} parameter(s) and ${prepared.parameters.length} are bound: bind them with DoPut(CommandPreparedStatementQuery) first`);
      }
      return statementPlan(prepared.sql, prepared.parameters, prepared.datasetSchema);
    }
    case 'CommandStatementSubstraitPlan':
      throw new QuarryError('FLIGHT_COMMAND_UNSUPPORTED', 'Substrait plans are not supported: send SQL (CommandStatementQuery)');
    default:
      if (isMetadataCommand(command)) {
        // The command itself is the ticket: metadata is computed at DoGet time.
        return { schema: metadataSchema(command), ticket: issueTicket ? descriptor.cmd : undefined, expiresAt: undefined };
      }
      throw new QuarryError('FLIGHT_COMMAND_INVALID', `${command.name} cannot be fetched with GetFlightInfo/GetSchema (updates and ingest use DoPut; prepared statements are created with DoAction)`);
  }
}
