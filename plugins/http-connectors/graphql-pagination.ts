import { Kind, parse, print, type DocumentNode, type FieldNode, type SelectionSetNode } from 'graphql';

/**
 * Cursor pagination of a GraphQL query, the Relay way: the one field whose selection holds
 * `pageInfo { hasNextPage endCursor }` is the connection. Each next page is the same query
 * with that field's `after:` argument set to the previous page's `endCursor`.
 */
export interface Pagination {
  /** Response keys from `data` to the connection field (aliases win over names). */
  readonly connectionPath: readonly string[];
  /** `nodes` or `edges` when the connection selects one of them (where its rows are). */
  readonly rowsKey: 'nodes' | 'edges' | undefined;
  /** The query text for the page after `cursor` (the first page: undefined). */
  queryAfter(cursor: string | undefined): string;
}

/** Undefined when the query selects no `pageInfo` (a single request). Throws on a query that does not parse. */
export function findPagination(query: string): Pagination | undefined {
  const document = parse(query);
  const operation = document.definitions.find((definition) => definition.kind === Kind.OPERATION_DEFINITION);
  if (!operation || operation.kind !== Kind.OPERATION_DEFINITION) throw new Error('the query has no operation (query { ... })');
  const found: Array<{ path: string[]; field: FieldNode }> = [];
  walk(operation.selectionSet, [], found);
  if (found.length === 0) return undefined;
  if (found.length > 1) throw new Error(`the query selects pageInfo in ${found.length} places (${found.map((entry) => entry.path.join('.')).join(', ')}); paginate one connection per dataset`);
  const target = found[0]!.field;
  const childNames = new Set(target.selectionSet!.selections.flatMap((child) => (child.kind === Kind.FIELD ? [child.alias?.value ?? child.name.value] : [])));
  return {
    connectionPath: found[0]!.path,
    rowsKey: childNames.has('nodes') ? 'nodes' : childNames.has('edges') ? 'edges' : undefined,
    queryAfter(cursor) {
      if (cursor === undefined) return query;
      return print(withAfter(document, target, cursor));
    },
  };
}

function walk(selectionSet: SelectionSetNode, path: string[], found: Array<{ path: string[]; field: FieldNode }>): void {
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.INLINE_FRAGMENT) {
      walk(selection.selectionSet, path, found);
      continue;
    }
    if (selection.kind !== Kind.FIELD || !selection.selectionSet) continue;
    const key = selection.alias?.value ?? selection.name.value;
    const selectsPageInfo = selection.selectionSet.selections.some((child) => child.kind === Kind.FIELD && child.name.value === 'pageInfo');
    if (selectsPageInfo) found.push({ path: [...path, key], field: selection });
    else walk(selection.selectionSet, [...path, key], found);
  }
}

/** A copy of the document where `target` has `after: "<cursor>"` (replacing any `after` it had). */
function withAfter(document: DocumentNode, target: FieldNode, cursor: string): DocumentNode {
  const replace = (node: unknown): unknown => {
    if (node === target) {
      const field = node as FieldNode;
      const others = (field.arguments ?? []).filter((argument) => argument.name.value !== 'after');
      return {
        ...field,
        arguments: [...others, { kind: Kind.ARGUMENT, name: { kind: Kind.NAME, value: 'after' }, value: { kind: Kind.STRING, value: cursor } }],
      };
    }
    if (Array.isArray(node)) return node.map(replace);
    if (typeof node === 'object' && node !== null) {
      return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, key === 'loc' ? value : replace(value)]));
    }
    return node;
  };
  return replace(document) as DocumentNode;
}
