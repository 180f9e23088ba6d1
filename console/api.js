// @ts-check
/**
 * The console's only door to the app: every call of the documented HTTP API goes through here,
 * with the token each route needs. Buyers' tokens (from `POST /users`) and the operator's token
 * live in this tab's sessionStorage only.
 */

const ADMIN_KEY = 'console.admin-token';
const BUYERS_KEY = 'console.buyer-tokens';
const OWNERS_KEY = 'console.checkout-buyers';

/** An answer other than 2xx: the API's own error body, with its problems by field. */
export class ApiError extends Error {
  /** @param {number} status @param {any} body */
  constructor(status, body) {
    super(typeof body?.message === 'string' ? body.message : `HTTP ${status}`);
    this.status = status;
    this.body = body;
    /** @type {Map<string, string[]>} field -> problems, from `details` */
    this.fields = fieldProblems(body?.details);
  }
}

/** `details` is `[{field, problems}]` for validation errors, or `["field: problem"]` for rule checks. */
function fieldProblems(details) {
  const fields = new Map();
  if (!Array.isArray(details)) return fields;
  for (const detail of details) {
    if (detail && typeof detail === 'object' && typeof detail.field === 'string') {
      fields.set(detail.field, [...(fields.get(detail.field) ?? []), ...(detail.problems ?? [])]);
    } else if (typeof detail === 'string' && /^[\w.]+: /.test(detail)) {
      const [field, ...text] = detail.split(': ');
      fields.set(field, [...(fields.get(field) ?? []), text.join(': ')]);
    }
  }
  return fields;
}

/** @param {string} key */
const readMap = (key) => /** @type {Record<string, string>} */ (JSON.parse(sessionStorage.getItem(key) ?? '{}'));
/** @param {string} key @param {string} id @param {string} value */
function remember(key, id, value) {
  sessionStorage.setItem(key, JSON.stringify({ ...readMap(key), [id]: value }));
}

export const adminToken = {
  get: () => sessionStorage.getItem(ADMIN_KEY) ?? undefined,
  /** @param {string} token */
  set: (token) => sessionStorage.setItem(ADMIN_KEY, token),
  clear: () => sessionStorage.removeItem(ADMIN_KEY),
};

/** The buyer's token for a checkout this tab started, else the operator's (who may read any). */
const tokenForUser = (/** @type {string} */ userId) => readMap(BUYERS_KEY)[userId] ?? adminToken.get();
const tokenForCheckout = (/** @type {string} */ id) => tokenForUser(readMap(OWNERS_KEY)[id] ?? '');

/**
 * @param {string} method @param {string} path
 * @param {{ body?: unknown, token?: string, headers?: Record<string, string> }} [options]
 */
async function call(method, path, options = {}) {
  /** @type {Record<string, string>} */
  const headers = { accept: 'application/json', ...options.headers };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const response = await fetch(path, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const json = (response.headers.get('content-type') ?? '').includes('json');
  const body = json ? await response.json() : await response.text();
  if (!response.ok) throw new ApiError(response.status, body);
  return body;
}

const admin = (/** @type {string} */ method, /** @type {string} */ path, /** @type {unknown} */ body) =>
  call(method, path, { body, token: adminToken.get() });

/** What the app runs with: `{admin, faultInjection}` (ADMIN_TOKEN set, FAULT_INJECTION=true). */
export const features = () => call('GET', '/features');

/**
 * The checkout's steps in order: `[{name, class, command, done, compensation}]`, the compensation
 * `{name, command, done}`, or null where nothing undoes the step.
 */
export const checkoutSteps = () => call('GET', '/checkout-steps');

/**
 * Checks a token against an operator's route (401 when it is not the one), and reads the fault
 * points and rules when fault injection is on.
 * @param {string} token @param {boolean} faultInjection
 * @returns {Promise<{ valid: boolean, faults?: { points: Array<{point: string, actions: string[], description: string}>, rules: any[] } }>}
 */
export async function checkAdminToken(token, faultInjection) {
  try {
    await call('GET', '/admin/dead-letters?limit=1', { token });
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return { valid: false };
    throw error;
  }
  return { valid: true, faults: faultInjection ? await call('GET', '/admin/faults', { token }) : undefined };
}

export const api = {
  plans: () => call('GET', '/plans'),

  /** @param {{email: string, name: string, country: string}} user */
  async createUser(user) {
    const created = await call('POST', '/users', { body: user });
    if (typeof created.token === 'string') remember(BUYERS_KEY, created.id, created.token);
    return created;
  },

  /** @param {{userId: string, planId: string, paymentMethod: string, mode: string}} body */
  async startCheckout(body) {
    const started = await call('POST', '/checkouts', {
      body,
      token: tokenForUser(body.userId),
      headers: { 'idempotency-key': crypto.randomUUID() },
    });
    remember(OWNERS_KEY, started.id, body.userId);
    return started;
  },

  checkout: (/** @type {string} */ id) => call('GET', `/checkouts/${id}`, { token: tokenForCheckout(id) }),
  timeline: (/** @type {string} */ id) => call('GET', `/checkouts/${id}/timeline`, { token: tokenForCheckout(id) }),

  /** @param {Record<string, string | undefined>} query status, mode, stuck, cursor, limit */
  listCheckouts(query) {
    const params = new URLSearchParams(Object.entries(query).filter(([, v]) => v !== undefined && v !== ''));
    return call('GET', `/checkouts?${params}`, { token: adminToken.get() });
  },

  comparison: () => call('GET', '/comparisons/latest'),

  // The operator's routes.
  /** A blocked buyer's token opens nothing (403): from here on the operator acts for them. */
  async blockUser(/** @type {string} */ id) {
    const blocked = await admin('POST', `/admin/users/${id}/block`);
    const buyers = readMap(BUYERS_KEY);
    delete buyers[id];
    sessionStorage.setItem(BUYERS_KEY, JSON.stringify(buyers));
    return blocked;
  },
  deadLetters: () => admin('GET', '/admin/dead-letters?status=dead'),
  redrive: (/** @type {string} */ id) => admin('POST', `/admin/dead-letters/${id}/redrive`),
  discard: (/** @type {string} */ id) => admin('DELETE', `/admin/dead-letters/${id}`),
  sagasInIntervention: () => admin('GET', '/admin/sagas?state=INTERVENTION'),
  retrySaga: (/** @type {string} */ id) => admin('POST', `/admin/sagas/${id}/retry`),
  stalledCheckouts: () =>
    call('GET', '/checkouts?status=INTERVENTION&mode=choreography&limit=50', { token: adminToken.get() }),
  resumeCheckout: (/** @type {string} */ id) => admin('POST', `/admin/checkouts/${id}/resume`),
  invariants: () => admin('GET', '/admin/invariants'),
  participants: () => admin('GET', '/admin/participants'),
  faults: () => admin('GET', '/admin/faults'),
  /** @param {Array<{point: string, action: string, times?: number}>} rules */
  setFaults: (rules) => admin('PUT', '/admin/faults', { rules }),
  clearFaults: () => admin('DELETE', '/admin/faults'),
};
