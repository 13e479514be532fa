import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { QuarryError } from '../../errors/quarry-error.js';
import { quoteQualifiedName } from '../../engine/sql-text.js';
import { serverStream, unary } from '../call-handlers.js';
import type { FlightContext } from '../flight-context.js';
import {
  FlightDescriptor_DescriptorType,
  FlightDescriptorSchema,
  FlightInfoSchema,
  SchemaResultSchema,
  type Criteria,
  type FlightDescriptor,
  type FlightInfo,
  type PollInfo,
  type SchemaResult,
} from '../generated/arrow/flight/protocol/flight_pb.js';
import { encapsulatedSchema } from '../ipc/flight-message-writer.js';
import { schemaOfRelation } from '../metadata/internal-query.js';
import { planDescriptor } from './flight-plan.js';

/** GetFlightInfo: schema plus one endpoint whose ticket DoGet redeems on this server. */
export function getFlightInfoHandler(context: FlightContext) {
  return unary<FlightDescriptor, FlightInfo>(context, 'GetFlightInfo', async (descriptor, inbound) => {
    const plan = await planDescriptor(context, descriptor, inbound, true);
    return create(FlightInfoSchema, {
      schema: encapsulatedSchema(plan.schema),
      flightDescriptor: descriptor,
      endpoint: [{ ticket: { ticket: plan.ticket }, location: [], ...(plan.expiresAt ? { expirationTime: timestampFromDate(plan.expiresAt) } : {}) }],
      totalRecords: -1n,
      totalBytes: -1n,
      ordered: false,
    });
  });
}

/** GetSchema: the result schema without running the statement or issuing a ticket. */
export function getSchemaHandler(context: FlightContext) {
  return unary<FlightDescriptor, SchemaResult>(context, 'GetSchema', async (descriptor, inbound) => {
    const plan = await planDescriptor(context, descriptor, inbound, false);
    return create(SchemaResultSchema, { schema: encapsulatedSchema(plan.schema) });
  });
}

/** PollFlightInfo: queries run at DoGet time, so there is nothing to poll. */
export function pollFlightInfoHandler(context: FlightContext) {
  return unary<FlightDescriptor, PollInfo>(context, 'PollFlightInfo', async () => {
    throw new QuarryError('FLIGHT_COMMAND_UNSUPPORTED', 'PollFlightInfo is not supported: use GetFlightInfo, then DoGet');
  });
}

/**
 * ListFlights: one flight per loaded dataset, with a PATH descriptor and a plain-Flight
 * ticket (its SELECT as text), so generic Flight clients can browse and fetch datasets.
 */
export function listFlightsHandler(context: FlightContext) {
  return serverStream<Criteria, FlightInfo>(context, 'ListFlights', async (call) => {
    for (const dataset of context.engine.datasets()) {
      if (dataset.state !== 'ready' && dataset.state !== 'refreshing') continue;
      const relation = quoteQualifiedName(dataset.name);
      let schema;
      try {
        schema = await schemaOfRelation(context.engine, relation);
      } catch {
        continue;
      }
      call.write(
        create(FlightInfoSchema, {
          schema: encapsulatedSchema(schema),
          flightDescriptor: create(FlightDescriptorSchema, { type: FlightDescriptor_DescriptorType.PATH, path: dataset.name.split('.') }),
          endpoint: [{ ticket: { ticket: new TextEncoder().encode(`SELECT * FROM ${relation}`) }, location: [] }],
          totalRecords: -1n,
          totalBytes: -1n,
        }),
      );
    }
  });
}
