/**
 * The page's own metadata queries start with this comment, so the runtime pane can leave them
 * out of "last queries" (they would otherwise fill it every few seconds).
 */
export const OWN_QUERY_MARK = '/* quarry-playground */';

export const ownQuery = (sql: string) => `${OWN_QUERY_MARK} ${sql}`;
