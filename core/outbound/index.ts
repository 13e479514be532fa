export { OutboundClient } from './client.js';
export type { OutboundCall, OutboundDataset, OutboundRequest, OutboundResponse } from './types.js';
