/** The SQLSTATE of a Postgres error, as pg raises it or as TypeORM wraps it; undefined for any other error. */
export const sqlStateOf = (error: unknown): string | undefined => {
  const code =
    (error as { driverError?: { code?: unknown } } | null | undefined)?.driverError?.code ??
    (error as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
};
