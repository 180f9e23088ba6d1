/** A one-line description of anything thrown, for log lines. */
export function describeError(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) {
    return [...new Set(error.errors.map(describeError))].join('; ');
  }
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return code && !error.message.includes(String(code)) ? `${code}: ${error.message}` : error.message || error.name;
  }
  return String(error);
}
