import { fromBinary, type DescMessage, type MessageShape } from '@bufbuild/protobuf';
import { AnySchema } from '@bufbuild/protobuf/wkt';
import { QuarryError } from '../errors/quarry-error.js';
import * as sql from './generated/arrow/flight/protocol/sql/flight_sql_pb.js';

/**
 * Flight SQL commands travel as google.protobuf.Any in FlightDescriptor.cmd, Ticket.ticket
 * and Action.body. This decodes such bytes into a tagged union the handlers switch on.
 */
const commandSchemas = {
  CommandStatementQuery: sql.CommandStatementQuerySchema,
  CommandStatementSubstraitPlan: sql.CommandStatementSubstraitPlanSchema,
  TicketStatementQuery: sql.TicketStatementQuerySchema,
  CommandPreparedStatementQuery: sql.CommandPreparedStatementQuerySchema,
  CommandStatementUpdate: sql.CommandStatementUpdateSchema,
  CommandPreparedStatementUpdate: sql.CommandPreparedStatementUpdateSchema,
  CommandStatementIngest: sql.CommandStatementIngestSchema,
  CommandGetCatalogs: sql.CommandGetCatalogsSchema,
  CommandGetDbSchemas: sql.CommandGetDbSchemasSchema,
  CommandGetTables: sql.CommandGetTablesSchema,
  CommandGetTableTypes: sql.CommandGetTableTypesSchema,
  CommandGetSqlInfo: sql.CommandGetSqlInfoSchema,
  CommandGetXdbcTypeInfo: sql.CommandGetXdbcTypeInfoSchema,
  CommandGetPrimaryKeys: sql.CommandGetPrimaryKeysSchema,
  CommandGetExportedKeys: sql.CommandGetExportedKeysSchema,
  CommandGetImportedKeys: sql.CommandGetImportedKeysSchema,
  CommandGetCrossReference: sql.CommandGetCrossReferenceSchema,
  ActionCreatePreparedStatementRequest: sql.ActionCreatePreparedStatementRequestSchema,
  ActionClosePreparedStatementRequest: sql.ActionClosePreparedStatementRequestSchema,
  ActionCreatePreparedSubstraitPlanRequest: sql.ActionCreatePreparedSubstraitPlanRequestSchema,
  ActionBeginTransactionRequest: sql.ActionBeginTransactionRequestSchema,
  ActionEndTransactionRequest: sql.ActionEndTransactionRequestSchema,
  ActionBeginSavepointRequest: sql.ActionBeginSavepointRequestSchema,
  ActionEndSavepointRequest: sql.ActionEndSavepointRequestSchema,
  ActionCancelQueryRequest: sql.ActionCancelQueryRequestSchema,
} as const;

type CommandSchemas = typeof commandSchemas;
export type CommandName = keyof CommandSchemas;

/** A decoded command: `{ name: 'CommandGetTables', message: CommandGetTables }`, ... */
export type FlightCommand = { [Name in CommandName]: { readonly name: Name; readonly message: MessageShape<CommandSchemas[Name]> } }[CommandName];

const SQL_PACKAGE = 'arrow.flight.protocol.sql.';

const byTypeName = new Map<string, [CommandName, DescMessage]>(
  Object.entries(commandSchemas).map(([name, schema]) => [schema.typeName, [name as CommandName, schema]]),
);

/**
 * Decodes Any-packed command bytes. Returns `undefined` when the bytes are not an Any with
 * a type URL at all (plain Flight: the caller may read them as SQL text or a path); throws
 * FLIGHT_COMMAND_UNSUPPORTED for an unknown type and FLIGHT_COMMAND_INVALID when the value
 * does not decode as its declared type.
 */
export function decodeCommand(bytes: Uint8Array): FlightCommand | undefined {
  const any = tryDecodeAny(bytes);
  if (!any) return undefined;
  const typeName = any.typeUrl.slice(any.typeUrl.lastIndexOf('/') + 1);
  const entry = byTypeName.get(typeName);
  if (!entry) {
    const hint = typeName.startsWith(SQL_PACKAGE) ? 'it is not supported by Quarry' : 'it is not a Flight SQL command';
    throw new QuarryError('FLIGHT_COMMAND_UNSUPPORTED', `unknown command type ${any.typeUrl}: ${hint}`);
  }
  const [name, schema] = entry;
  try {
    return { name, message: fromBinary(schema, any.value) } as FlightCommand;
  } catch (error) {
    throw new QuarryError('FLIGHT_COMMAND_INVALID', `the ${name} command could not be decoded: ${(error as Error).message}`, { cause: error });
  }
}

/** Like decodeCommand, but bytes that are not an Any at all are an error too. */
export function requireCommand(bytes: Uint8Array, where: string): FlightCommand {
  const command = decodeCommand(bytes);
  if (!command) {
    throw new QuarryError('FLIGHT_COMMAND_INVALID', `${where} is not a Flight SQL command (expected a google.protobuf.Any with a type.googleapis.com/arrow.flight.protocol.sql.* type URL)`);
  }
  return command;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Plain Flight: command or ticket bytes that are not a Flight SQL command, read as SQL text
 * (Spice's SDKs send the query itself as the descriptor's command, and tickets of
 * ListFlights hold a SELECT).
 */
export function plainSqlText(bytes: Uint8Array, what: string): string {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new QuarryError('FLIGHT_COMMAND_INVALID', `${what} is neither a Flight SQL command nor UTF-8 SQL text`);
  }
  if (text.trim() === '') throw new QuarryError('FLIGHT_COMMAND_INVALID', `${what} is empty: send a Flight SQL command or the SQL text itself`);
  return text;
}

function tryDecodeAny(bytes: Uint8Array): { typeUrl: string; value: Uint8Array } | undefined {
  if (bytes.byteLength === 0 || bytes[0] !== 0x0a) return undefined;
  try {
    const any = fromBinary(AnySchema, bytes);
    if (!any.typeUrl.includes('/') || !/^[\w.-]+(?:\/[\w.-]+)*\/[\w.]+$/.test(any.typeUrl)) return undefined;
    return { typeUrl: any.typeUrl, value: any.value };
  } catch {
    return undefined;
  }
}
