import { GRPC, defineErrorCodes } from '../../core/errors/codes.js';

/** Error codes of the search plugin; registered when the module loads, so docs/errors.md lists them. */
defineErrorCodes({
  SEARCH_CONFIG_INVALID: {
    http: 500,
    grpc: GRPC.INTERNAL,
    description:
      'A dataset\'s full_text_search or embeddings settings cannot be served (a column or row_id the dataset lacks, an embeddings model not declared, a dataset that is not accelerated); the message names the dataset and column.',
  },
  EMBEDDING_MODEL_FAILED: {
    http: 502,
    grpc: GRPC.UNAVAILABLE,
    description:
      'An embeddings model could not compute vectors: its endpoint answered an error or an unexpected body, or the local ONNX model or tokenizer could not be loaded or run; the message names the model.',
  },
  SEARCH_INVALID_REQUEST: {
    http: 400,
    grpc: GRPC.INVALID_ARGUMENT,
    description:
      'A search request is malformed: no text, an empty datasets list, a dataset without full-text or vector search, a bad limit, where or additional_columns; the message says what is accepted.',
  },
  SEARCH_INDEX_NOT_READY: {
    http: 503,
    grpc: GRPC.UNAVAILABLE,
    description: 'The dataset\'s search index is still being built (at load or after a refresh or write failed to rebuild it); retry once the dataset is ready.',
  },
});
