import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import type { ServerWritableStream } from '@grpc/grpc-js';
import { Schema } from 'apache-arrow';
import { QuarryError } from '../../errors/quarry-error.js';
import { serverStream } from '../call-handlers.js';
import { decodeCommand, requireCommand } from '../flight-commands.js';
import type { FlightContext } from '../flight-context.js';
import { packAny } from '../flight-any.js';
import {
  ActionTypeSchema,
  CancelFlightInfoRequestSchema,
  CancelFlightInfoResultSchema,
  CancelStatus,
  FlightInfoSchema,
  ResultSchema,
  type Action,
  type ActionType,
  type Empty,
  type FlightInfo,
  type Result,
} from '../generated/arrow/flight/protocol/flight_pb.js';
import {
  ActionCancelQueryResult_CancelResult,
  ActionCancelQueryResultSchema,
  ActionCreatePreparedStatementResultSchema,
} from '../generated/arrow/flight/protocol/sql/flight_sql_pb.js';
import { encapsulatedSchema } from '../ipc/flight-message-writer.js';
import { describeStatement } from '../statement-schema.js';

/** The actions DoAction runs, as ListActions reports them. */
const ACTIONS: ReadonlyArray<[string, string]> = [
  ['CreatePreparedStatement', 'Prepares a SQL statement; body and result are Any-packed ActionCreatePreparedStatementRequest/Result. Handles expire after 10 minutes unused.'],
  ['ClosePreparedStatement', 'Closes a prepared statement; body is an Any-packed ActionClosePreparedStatementRequest.'],
  ['CancelFlightInfo', 'Cancels the queries of a FlightInfo (body: CancelFlightInfoRequest; result: CancelFlightInfoResult).'],
  ['CancelQuery', 'Deprecated Flight SQL form of CancelFlightInfo (Any-packed ActionCancelQueryRequest/Result).'],
];

export function listActionsHandler(context: FlightContext) {
  return serverStream<Empty, ActionType>(context, 'ListActions', async (call) => {
    for (const [type, description] of ACTIONS) call.write(create(ActionTypeSchema, { type, description }));
  });
}

const UNSUPPORTED_ACTIONS = new Set([
  'BeginTransaction', 'EndTransaction', 'BeginSavepoint', 'EndSavepoint', 'CreatePreparedSubstraitPlan',
  'RenewFlightEndpoint', 'SetSessionOptions', 'GetSessionOptions', 'CloseSession',
]);

/** DoAction: prepared statements and cancellation; transactions and sessions answer UNIMPLEMENTED. */
export function doActionHandler(context: FlightContext) {
  return serverStream<Action, Result>(context, 'DoAction', async (call: ServerWritableStream<Action, Result>, { inbound }) => {
    const { type, body } = call.request;
    const principalId = inbound.principal.id;
    switch (type) {
      case 'CreatePreparedStatement': {
        const command = requireCommand(body, 'the CreatePreparedStatement body');
        if (command.name !== 'ActionCreatePreparedStatementRequest') throw wrongBody(type, command.name);
        if (command.message.transactionId !== undefined) {
          throw new QuarryError('FLIGHT_COMMAND_UNSUPPORTED', 'Flight SQL transactions are not supported: prepare the statement without a transaction_id');
        }
        const description = await describeStatement(context.engine, command.message.query);
        const handle = context.statements.addPrepared({
          sql: command.message.query,
          principalId,
          kind: description.kind,
          parameterCount: description.parameterCount,
          datasetSchema: description.kind === 'read' ? description.datasetSchema : new Schema([]),
          parameterSchema: description.parameterSchema,
          parameters: [],
        });
        const prepared = context.statements.prepared(handle, principalId);
        const result = packAny(ActionCreatePreparedStatementResultSchema, {
          preparedStatementHandle: handle,
          datasetSchema: encapsulatedSchema(prepared.datasetSchema),
          parameterSchema: encapsulatedSchema(prepared.parameterSchema),
        });
        call.write(create(ResultSchema, { body: result }));
        return;
      }
      case 'ClosePreparedStatement': {
        const command = requireCommand(body, 'the ClosePreparedStatement body');
        if (command.name !== 'ActionClosePreparedStatementRequest') throw wrongBody(type, command.name);
        context.statements.closePrepared(command.message.preparedStatementHandle, principalId);
        return;
      }
      case 'CancelFlightInfo': {
        let info: FlightInfo | undefined;
        try {
          info = fromBinary(CancelFlightInfoRequestSchema, body).info;
        } catch (error) {
          throw new QuarryError('FLIGHT_COMMAND_INVALID', `the CancelFlightInfo body is not a CancelFlightInfoRequest: ${(error as Error).message}`);
        }
        const cancelled = cancelInfo(context, info, principalId);
        const status = cancelled ? CancelStatus.CANCELLED : CancelStatus.NOT_CANCELLABLE;
        call.write(create(ResultSchema, { body: toBinary(CancelFlightInfoResultSchema, create(CancelFlightInfoResultSchema, { status })) }));
        return;
      }
      case 'CancelQuery': {
        const command = requireCommand(body, 'the CancelQuery body');
        if (command.name !== 'ActionCancelQueryRequest') throw wrongBody(type, command.name);
        let info: FlightInfo;
        try {
          info = fromBinary(FlightInfoSchema, command.message.info);
        } catch (error) {
          throw new QuarryError('FLIGHT_COMMAND_INVALID', `ActionCancelQueryRequest.info is not a FlightInfo: ${(error as Error).message}`);
        }
        const cancelled = cancelInfo(context, info, principalId);
        const result = cancelled ? ActionCancelQueryResult_CancelResult.CANCELLED : ActionCancelQueryResult_CancelResult.NOT_CANCELLABLE;
        call.write(create(ResultSchema, { body: packAny(ActionCancelQueryResultSchema, { result }) }));
        return;
      }
      default:
        if (UNSUPPORTED_ACTIONS.has(type)) throw new QuarryError('FLIGHT_COMMAND_UNSUPPORTED', `the ${type} action is not supported by Quarry`);
        throw new QuarryError('FLIGHT_COMMAND_UNSUPPORTED', `unknown action "${type}" (ListActions lists the supported ones)`);
    }
  });
}

function wrongBody(action: string, got: string): QuarryError {
  return new QuarryError('FLIGHT_COMMAND_INVALID', `the ${action} action does not take a ${got}`);
}

/**
 * Cancels what the FlightInfo's tickets point at: running DoGet streams stop (the engine
 * query is interrupted) and statement tickets stop being redeemable.
 */
function cancelInfo(context: FlightContext, info: FlightInfo | undefined, principalId: string): boolean {
  let found = false;
  for (const endpoint of info?.endpoint ?? []) {
    const command = endpoint.ticket ? decodeCommandSafely(endpoint.ticket.ticket) : undefined;
    if (command?.name !== 'TicketStatementQuery') continue;
    const handle = command.message.statementHandle;
    try {
      context.statements.pending(handle, principalId);
    } catch {
      continue;
    }
    context.running.cancel(handle);
    context.statements.dropPending(handle);
    found = true;
  }
  return found;
}

function decodeCommandSafely(bytes: Uint8Array) {
  try {
    return decodeCommand(bytes);
  } catch {
    return undefined;
  }
}
