import { defineErrorCodes, GRPC } from '../../core/errors/codes.js';

/** Errors of cluster mode, registered when the plugin module loads (docs/errors.md lists them). */
defineErrorCodes({
  CLUSTER_CONFIG_INVALID: {
    http: 400,
    grpc: GRPC.INVALID_ARGUMENT,
    description: 'Cluster mode is misconfigured: an accelerated dataset has no `acceleration.partition_by`, a `partition_by` expression is not valid (e.g. `bucket(N, column)` with N outside 1..1000000), or a role flag conflicts with the manifest; the message names the dataset or flag and what is accepted.',
  },
  CLUSTER_PARTITION_UNAVAILABLE: {
    http: 503,
    grpc: GRPC.UNAVAILABLE,
    description: 'A query or write on a scheduler needs a partition that has no live owner (its executor stopped and the next assignment round has not moved it yet, or a new partition value is not assigned yet), or the owning executor failed its share of the scan or write; the message names the dataset and the partitions or executor.',
  },
  CLUSTER_SHARE_CHANGING: {
    http: 503,
    grpc: GRPC.UNAVAILABLE,
    description: 'An executor was asked to scan exactly the partitions it holds, without the partition predicate, while its table holds other partitions or is being reloaded after a reassignment. Between nodes only: the scheduler sends the scan again with the predicate.',
  },
  CLUSTER_STATE_CONFLICT: {
    http: 503,
    grpc: GRPC.UNAVAILABLE,
    description: 'A change to the shared cluster document lost its compare-and-swap race on every one of its bounded retries (other schedulers kept writing); the next assignment round tries again.',
  },
  CLUSTER_STATE_INVALID: {
    http: 500,
    grpc: GRPC.INTERNAL,
    description: 'The cluster document in the state location is not one this release can read (not JSON, or another schema version); the message names the object.',
  },
  CLUSTER_NODE_UNREACHABLE: {
    http: 503,
    grpc: GRPC.UNAVAILABLE,
    description: 'A node-to-node call failed: the peer (e.g. the scheduler an executor calls) is down, refused the TLS handshake (a certificate not signed by the node CA) or answered with an error; the message names the peer.',
  },
  CLUSTER_NODE_UNAUTHENTICATED: {
    http: 401,
    grpc: GRPC.UNAUTHENTICATED,
    description: 'A call reached a node listener without a node certificate verified against the node CA (`--node-mtls-*`); the node listener serves cluster peers only. Clients use the public HTTP and Flight listeners.',
  },
  PARTITION_DISCOVERY_TIMEOUT: {
    http: 504,
    grpc: GRPC.DEADLINE_EXCEEDED,
    description: 'Listing the distinct partition values of a dataset took longer than `runtime.scheduler.partition_discovery_timeout`; the round skips the dataset and the next one tries again.',
  },
});
