import type { AppRole } from '../config/app.config';

/** The one start-up line that says where to reach the app: the API, its docs and the console, or only the operations routes. */
export function listeningMessage(port: number, roles: ReadonlySet<AppRole>): string {
  const base = `http://localhost:${port}`;
  return roles.has('api')
    ? `Listening on ${base}: the API, its docs at ${base}/docs and the console at ${base}/console`
    : `Listening on ${base}: /health and /metrics only (this process does not run the api role)`;
}
