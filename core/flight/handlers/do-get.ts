import type { ServerWritableStream } from '@grpc/grpc-js';
import { QuarryError } from '../../errors/quarry-error.js';
import { serverStream } from '../call-handlers.js';
import { decodeCommand, plainSqlText } from '../flight-commands.js';
import type { FlightContext } from '../flight-context.js';
import type { Ticket } from '../generated/arrow/flight/protocol/flight_pb.js';
import { isMetadataCommand, metadataResult } from '../metadata/metadata-commands.js';
import { streamBatches, streamQuery } from './query-stream.js';

/**
 * DoGet: redeems tickets from GetFlightInfo (statement tickets, prepared statements,
 * metadata commands) and plain-Flight tickets holding SQL text.
 */
export function doGetHandler(context: FlightContext) {
  return serverStream<Ticket, Buffer>(context, 'DoGet', async (call: ServerWritableStream<Ticket, Buffer>, { inbound, signal }) => {
    const bytes = call.request.ticket;
    const command = decodeCommand(bytes);
    const principalId = inbound.principal.id;
    if (!command) return streamQuery(context, call, inbound, signal, { sql: plainSqlText(bytes, 'the ticket'), parameters: [] });
    switch (command.name) {
      case 'TicketStatementQuery': {
        const handle = command.message.statementHandle;
        const pending = context.statements.pending(handle, principalId);
        return streamQuery(context, call, inbound, signal, { sql: pending.sql, parameters: pending.parameters, handle });
      }
      case 'CommandStatementQuery':
        return streamQuery(context, call, inbound, signal, { sql: command.message.query, parameters: [] });
      case 'CommandPreparedStatementQuery': {
        const handle = command.message.preparedStatementHandle;
        const prepared = context.statements.prepared(handle, principalId);
        return streamQuery(context, call, inbound, signal, { sql: prepared.sql, parameters: prepared.parameters, handle });
      }
      default: {
        if (isMetadataCommand(command)) {
          const batch = await metadataResult(context, command);
          return streamBatches(context, call, signal, batch.schema, [batch]);
        }
        throw new QuarryError('FLIGHT_COMMAND_INVALID', `${command.name} is not a DoGet ticket: pass the ticket GetFlightInfo returned`);
      }
    }
  });
}
