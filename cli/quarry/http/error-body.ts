/**
 * Reads the error a runtime sent. quarryd answers `{"error": {"code", "message"}}`; Spice
 * and proxies in front of a runtime answer `{"message": ...}`, `{"error": "..."}` or plain
 * text, so each shape is accepted and the text is never lost.
 */
export interface ServerErrorBody {
  code: string | undefined;
  message: string;
}

export function parseErrorBody(status: number, body: string): ServerErrorBody {
  const text = body.trim();
  if (text === '') return { code: undefined, message: `HTTP ${status}` };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { code: undefined, message: text };
  }
  if (typeof parsed === 'object' && parsed !== null) {
    const record = parsed as Record<string, unknown>;
    const error = record['error'];
    if (typeof error === 'object' && error !== null) {
      const inner = error as Record<string, unknown>;
      const message = typeof inner['message'] === 'string' ? inner['message'] : text;
      return { code: typeof inner['code'] === 'string' ? inner['code'] : undefined, message };
    }
    if (typeof error === 'string') return { code: undefined, message: error };
    if (typeof record['message'] === 'string') {
      return { code: typeof record['code'] === 'string' ? record['code'] : undefined, message: record['message'] };
    }
  }
  if (typeof parsed === 'string') return { code: undefined, message: parsed };
  return { code: undefined, message: text };
}
