/**
 * What each injected step fault must end in, by coordination style: a fault on every step, with
 * each action, once and every time. `effects` is what billing, content and notifications hold
 * for the checkout afterwards (undefined: no row at all); `invoices`, what the fiscal authority
 * filed under it (unsaid: one for a COMPLETED checkout, none otherwise).
 */
export interface Expected {
  status: 'COMPLETED' | 'FAILED' | 'REJECTED' | 'INTERVENTION';
  payment?: string;
  entitlement?: string;
  emails: number;
  invoices?: number;
}

export interface StepFaultCase {
  step: string;
  action: 'fail' | 'timeout-before' | 'timeout-after';
  times: 'once' | 'every time';
  orchestration: Expected;
  choreography: Expected;
}

const completed: Expected = { status: 'COMPLETED', payment: 'captured', entitlement: 'active', emails: 1 };
const stalled = (effects: Omit<Expected, 'status'>): Expected => ({ status: 'INTERVENTION', ...effects });
const nothing = { emails: 0 };

const cases = (
  step: string,
  rows: Array<[StepFaultCase['action'], StepFaultCase['times'], Expected, Expected]>,
): StepFaultCase[] =>
  rows.map(([action, times, orchestration, choreography]) => ({ step, action, times, orchestration, choreography }));

export const STEP_FAULT_CASES: StepFaultCase[] = [
  // Verifying changes nothing: a refusal rejects, silence is retried and then fails with nothing to undo.
  ...cases('identity.verify-user', [
    ['fail', 'once', { status: 'REJECTED', ...nothing }, { status: 'REJECTED', ...nothing }],
    ['fail', 'every time', { status: 'REJECTED', ...nothing }, { status: 'REJECTED', ...nothing }],
    ['timeout-before', 'once', completed, stalled(nothing)],
    ['timeout-before', 'every time', { status: 'FAILED', ...nothing }, stalled(nothing)],
    ['timeout-after', 'once', completed, stalled(nothing)],
    ['timeout-after', 'every time', { status: 'FAILED', ...nothing }, stalled(nothing)],
  ]),
  // Compensable: given up on, it is voided too (a tombstone if it never happened).
  ...cases('billing.authorize-payment', [
    ['fail', 'once', { status: 'FAILED', ...nothing }, { status: 'FAILED', ...nothing }],
    ['fail', 'every time', { status: 'FAILED', ...nothing }, { status: 'FAILED', ...nothing }],
    ['timeout-before', 'once', completed, stalled(nothing)],
    ['timeout-before', 'every time', { status: 'FAILED', payment: 'voided', emails: 0 }, stalled(nothing)],
    ['timeout-after', 'once', completed, stalled({ payment: 'authorized', emails: 0 })],
    [
      'timeout-after',
      'every time',
      { status: 'FAILED', payment: 'voided', emails: 0 },
      stalled({ payment: 'authorized', emails: 0 }),
    ],
  ]),
  ...cases('content.grant-access', [
    [
      'fail',
      'once',
      { status: 'FAILED', payment: 'voided', emails: 0 },
      { status: 'FAILED', payment: 'voided', emails: 0 },
    ],
    [
      'fail',
      'every time',
      { status: 'FAILED', payment: 'voided', emails: 0 },
      { status: 'FAILED', payment: 'voided', emails: 0 },
    ],
    ['timeout-before', 'once', completed, stalled({ payment: 'authorized', emails: 0 })],
    [
      'timeout-before',
      'every time',
      { status: 'FAILED', payment: 'voided', entitlement: 'revoked', emails: 0 },
      stalled({ payment: 'authorized', emails: 0 }),
    ],
    ['timeout-after', 'once', completed, stalled({ payment: 'authorized', entitlement: 'provisional', emails: 0 })],
    [
      'timeout-after',
      'every time',
      { status: 'FAILED', payment: 'voided', entitlement: 'revoked', emails: 0 },
      stalled({ payment: 'authorized', entitlement: 'provisional', emails: 0 }),
    ],
  ]),
  // The pivot: a refusal is undone in reverse order; silence is never undone blind.
  ...cases('billing.capture-payment', [
    [
      'fail',
      'once',
      { status: 'FAILED', payment: 'voided', entitlement: 'revoked', emails: 0 },
      { status: 'FAILED', payment: 'voided', entitlement: 'revoked', emails: 0 },
    ],
    [
      'fail',
      'every time',
      { status: 'FAILED', payment: 'voided', entitlement: 'revoked', emails: 0 },
      { status: 'FAILED', payment: 'voided', entitlement: 'revoked', emails: 0 },
    ],
    ['timeout-before', 'once', completed, stalled({ payment: 'authorized', entitlement: 'provisional', emails: 0 })],
    [
      'timeout-before',
      'every time',
      stalled({ payment: 'authorized', entitlement: 'provisional', emails: 0 }),
      stalled({ payment: 'authorized', entitlement: 'provisional', emails: 0 }),
    ],
    ['timeout-after', 'once', completed, stalled({ payment: 'captured', entitlement: 'provisional', emails: 0 })],
    [
      'timeout-after',
      'every time',
      stalled({ payment: 'captured', entitlement: 'provisional', emails: 0 }),
      stalled({ payment: 'captured', entitlement: 'provisional', emails: 0 }),
    ],
  ]),
  // After the pivot: the provisional grant made active, retried until done, never compensated.
  ...cases('content.activate-access', [
    ['fail', 'once', completed, completed],
    [
      'fail',
      'every time',
      stalled({ payment: 'captured', entitlement: 'provisional', emails: 0 }),
      stalled({ payment: 'captured', entitlement: 'provisional', emails: 0 }),
    ],
    ['timeout-before', 'once', completed, stalled({ payment: 'captured', entitlement: 'provisional', emails: 0 })],
    [
      'timeout-before',
      'every time',
      stalled({ payment: 'captured', entitlement: 'provisional', emails: 0 }),
      stalled({ payment: 'captured', entitlement: 'provisional', emails: 0 }),
    ],
    ['timeout-after', 'once', completed, stalled({ payment: 'captured', entitlement: 'active', emails: 0 })],
    [
      'timeout-after',
      'every time',
      stalled({ payment: 'captured', entitlement: 'active', emails: 0 }),
      stalled({ payment: 'captured', entitlement: 'active', emails: 0 }),
    ],
  ]),
  // After the pivot: the invoice, retried while the authority is down (the saga waits out an
  // outage), never compensated; after the step's work, the authority holds it whatever was lost.
  ...cases('billing.issue-invoice', [
    ['fail', 'once', completed, completed],
    [
      'fail',
      'every time',
      stalled({ payment: 'captured', entitlement: 'active', emails: 0 }),
      stalled({ payment: 'captured', entitlement: 'active', emails: 0 }),
    ],
    ['timeout-before', 'once', completed, stalled({ payment: 'captured', entitlement: 'active', emails: 0 })],
    [
      'timeout-before',
      'every time',
      stalled({ payment: 'captured', entitlement: 'active', emails: 0 }),
      stalled({ payment: 'captured', entitlement: 'active', emails: 0 }),
    ],
    [
      'timeout-after',
      'once',
      completed,
      stalled({ payment: 'captured', entitlement: 'active', emails: 0, invoices: 1 }),
    ],
    [
      'timeout-after',
      'every time',
      stalled({ payment: 'captured', entitlement: 'active', emails: 0, invoices: 1 }),
      stalled({ payment: 'captured', entitlement: 'active', emails: 0, invoices: 1 }),
    ],
  ]),
  // After the pivot: retried until sent, and never compensated.
  ...cases('notifications.send-welcome-email', [
    ['fail', 'once', completed, completed],
    [
      'fail',
      'every time',
      stalled({ payment: 'captured', entitlement: 'active', emails: 0, invoices: 1 }),
      stalled({ payment: 'captured', entitlement: 'active', emails: 0, invoices: 1 }),
    ],
    [
      'timeout-before',
      'once',
      completed,
      stalled({ payment: 'captured', entitlement: 'active', emails: 0, invoices: 1 }),
    ],
    [
      'timeout-before',
      'every time',
      stalled({ payment: 'captured', entitlement: 'active', emails: 0, invoices: 1 }),
      stalled({ payment: 'captured', entitlement: 'active', emails: 0, invoices: 1 }),
    ],
    [
      'timeout-after',
      'once',
      completed,
      stalled({ payment: 'captured', entitlement: 'active', emails: 1, invoices: 1 }),
    ],
    [
      'timeout-after',
      'every time',
      stalled({ payment: 'captured', entitlement: 'active', emails: 1, invoices: 1 }),
      stalled({ payment: 'captured', entitlement: 'active', emails: 1, invoices: 1 }),
    ],
  ]),
];
