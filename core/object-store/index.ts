export { FileObjectStore } from './file-object-store.js';
export { S3ObjectStore } from './s3-object-store.js';
export { openObjectStore } from './open-object-store.js';
export type { ObjectStore, StoredObject } from './types.js';
