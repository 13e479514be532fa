import { create, toBinary, type DescMessage, type MessageInitShape } from '@bufbuild/protobuf';
import { AnySchema } from '@bufbuild/protobuf/wkt';

/** Packs a message as google.protobuf.Any bytes, as Flight SQL puts commands in descriptors, tickets and action bodies. */
export function packAny<Desc extends DescMessage>(schema: Desc, init: MessageInitShape<Desc>): Uint8Array {
  const message = create(schema, init);
  return toBinary(AnySchema, create(AnySchema, { typeUrl: `type.googleapis.com/${schema.typeName}`, value: toBinary(schema, message) }));
}
