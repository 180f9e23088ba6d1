import type { AppRole } from '../config/app.config';

/** The one start-up line that says where to reach the app: the API and its docs, or only the operations routes. */
export function listeningMessage(port: number, roles: ReadonlySet<AppRole>): string {
  const base = `http://localhost:${port}`;
  return roles.has('api')
    ? `Listening on ${base}: the API, with its docs at ${base}/docs`
    : `Listening on ${base}: /health and /metrics only (this process does not run the api role)`;
}
