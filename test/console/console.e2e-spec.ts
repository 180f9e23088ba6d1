import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { Faults } from '../../src/infra/faults/faults';
import { launchChromium, openPage, type WatchedPage } from '../support/browser';
import { CheckoutClient } from '../support/checkout-client';
import { ADMIN_TOKEN, TestApp } from '../support/test-app';

const STEP_LANES: Record<string, string> = {
  'identity.verify-user': 'identity',
  'billing.authorize-payment': 'billing',
  'content.grant-access': 'content',
  'billing.capture-payment': 'billing',
  'content.activate-access': 'content',
  'billing.issue-invoice': 'billing',
  'notifications.send-welcome-email': 'notifications',
};
const SLOW = { timeout: 30_000 };

/** What `npm run compare` writes, small: the console draws whatever file is newest. */
const COMPARISON = {
  measuredAt: '2026-11-30T12:00:00.000Z',
  machine: {
    hostname: 'bench-box',
    platform: 'Linux x64',
    cpus: 2,
    cpuModel: 'Test CPU',
    memoryGb: 8,
    node: 'v24.0.0',
  },
  settings: {},
  repeat: 3,
  reports: Object.fromEntries(
    ['choreography', 'orchestration'].map((mode, i) => [
      mode,
      {
        outcomes: { business: { COMPLETED: 3, FAILED: 9, REJECTED: 6 }, faults: {} },
        business: {
          p50: 200 + i * 100,
          p95: 600 + i * 100,
          p99: 700 + i * 100,
          durationsMs: [120, 200, 250, 400, 600, 700].map((ms) => ms + i * 100),
          messagesPerCheckout: 4.2 + i * 2,
          transactionsPerCheckout: 15 + i * 5,
        },
        scenarios: {
          'happy path': { status: 'COMPLETED', durationMs: 300 },
          'billing.capture-payment timeout-after': {
            status: i ? 'COMPLETED' : 'INTERVENTION',
            durationMs: i ? 1200 : 3600,
            fault: 'timeout-after',
          },
          'void fails once': { status: 'FAILED', durationMs: 500, fault: 'compensation-fail' },
        },
        invariants: { checked: 20, violations: 0 },
      },
    ]),
  ),
};

/** Starts a checkout from the Start view and returns the ids the page watches. */
async function startFromPage(page: Page, scenario: string, mode: string): Promise<string[]> {
  await page.goto(`${page.url().split('#')[0]}#start`);
  await page.selectOption('#start-scenario', scenario);
  await page.check(`input[name=mode][value=${mode}]`);
  await page.getByRole('button', { name: 'Start' }).click();
  await page.waitForSelector('.panel[data-checkout-id]', SLOW);
  return page.$$eval('.panel[data-checkout-id]', (panels) => panels.map((p) => p.getAttribute('data-checkout-id')!));
}

async function enterAdminToken(page: Page): Promise<void> {
  await page.fill('#admin-token', ADMIN_TOKEN);
  await page.getByRole('button', { name: 'Use' }).click();
  await page.waitForSelector('[data-access=operator]');
}

/** The seven steps as the page draws them: handled, on the lane of the module that owns each. */
const stepsOnLanes = (page: Page, id: string) =>
  page.$$eval(`.panel[data-checkout-id="${id}"] g.entry[data-kind=handled][data-step]`, (entries) =>
    Object.fromEntries(entries.map((e) => [e.getAttribute('data-step'), e.getAttribute('data-lane')])),
  );

describe('The checkout console, in Chromium', () => {
  let app: TestApp;
  let client: CheckoutClient;
  let browser: Browser;
  let results: string;
  const pages: WatchedPage[] = [];

  const open = async (hash = '', options: Parameters<typeof openPage>[2] = {}) => {
    const watched = await openPage(browser, `${app.url}/console/${hash}`, options);
    pages.push(watched);
    return watched;
  };

  beforeAll(async () => {
    results = mkdtempSync(path.join(tmpdir(), 'compare-'));
    writeFileSync(path.join(results, 'compare-2026-11-30T12-00-00-000Z.json'), JSON.stringify(COMPARISON));
    [app, browser] = await Promise.all([
      TestApp.start({
        env: {
          OUTBOX_RELAY_INTERVAL_MS: '100',
          OUTBOX_ATTEMPTS: '3',
          OUTBOX_BACKOFF_MS: '20',
          COMPARE_RESULTS_DIR: results,
        },
      }),
      launchChromium(),
    ]);
    await app.ready();
    client = new CheckoutClient(app);
  });

  afterEach(async () => {
    const problems = pages.flatMap((p) => p.problems);
    await Promise.all(pages.splice(0).map((p) => p.close()));
    expect(problems).toEqual([]);
  });

  afterAll(async () => {
    await browser?.close();
    await app?.stop();
    rmSync(results, { recursive: true, force: true });
  });

  it.each(['choreography', 'orchestration'])(
    'when a happy checkout is started in %s from the page, then it shows COMPLETED with the seven steps on their lanes',
    async (mode) => {
      const { page, screenshot } = await open();

      const [id] = await startFromPage(page, 'happy', mode);

      await page.waitForSelector(`.panel[data-checkout-id="${id}"][data-status=COMPLETED]`, SLOW);
      await page.waitForSelector('.live[data-live=no]', SLOW);
      expect(await stepsOnLanes(page, id)).toEqual(STEP_LANES);
      expect(await page.textContent(`.panel[data-checkout-id="${id}"] .correlation`)).toContain(
        (await client.get(id)).correlationId,
      );
      expect(await client.get(id)).toMatchObject({ status: 'COMPLETED', mode });
      await screenshot(`happy-${mode}`);
    },
  );

  it.each(['choreography', 'orchestration'])(
    'when the capture is declined in %s, then the page lists the compensations that undid it and draws their entries as undoing',
    async (mode) => {
      const { page } = await open();

      const [id] = await startFromPage(page, 'capture-declined', mode);

      await page.waitForSelector(`.panel[data-checkout-id="${id}"][data-status=FAILED]`, SLOW);
      await page.waitForSelector('.live[data-live=no]', SLOW);
      const compensated = await page.$$eval('.steps [data-state=compensated]', (items) =>
        items.map((item) => item.getAttribute('data-step')),
      );
      expect(compensated.sort()).toEqual(['billing.void-authorization', 'content.revoke-access']);
      const undoing = await page.$$eval(`.panel[data-checkout-id="${id}"] g.entry.compensation`, (entries) =>
        entries.map((e) => e.getAttribute('data-step') ?? e.getAttribute('data-kind')),
      );
      expect(undoing.length).toBeGreaterThanOrEqual(2);
      expect(
        await page.$$eval(`.panel[data-checkout-id="${id}"] g.entry.compensation[data-step]`, (e) => e.length),
      ).toBe(0);
    },
  );

  it('when started in both modes, then both timelines end COMPLETED side by side on one time axis', async () => {
    const { page, screenshot } = await open();

    const ids = await startFromPage(page, 'happy', 'both');

    expect(ids).toHaveLength(2);
    await page.waitForSelector('.panel[data-status=COMPLETED] >> nth=1', SLOW);
    await page.waitForSelector('.live[data-live=no]', SLOW);
    expect(await page.$$eval('.panel', (panels) => panels.map((p) => p.getAttribute('data-mode')))).toEqual([
      'choreography',
      'orchestration',
    ]);
    for (const id of ids) expect(await stepsOnLanes(page, id)).toEqual(STEP_LANES);
    // One time axis: both drawings have the same height, and the panels sit in one row.
    const boxes = await page.$$eval('.panel svg.lanes', (svgs) => svgs.map((s) => s.getAttribute('height')));
    expect(new Set(boxes).size).toBe(1);
    const [left, right] = await page.$$eval('.panel', (panels) => panels.map((p) => p.getBoundingClientRect().top));
    expect(left).toBe(right);
    await screenshot('both-side-by-side');
  });

  it('when the welcome email always fails, then the page shows INTERVENTION and its dead letter; redriven from the page, COMPLETED', async () => {
    const { page, screenshot } = await open();
    await enterAdminToken(page);
    await page.goto(`${app.url}/console/#start`);
    await page.selectOption('#start-point', 'consumer:notifications.send-welcome-email');
    await page.selectOption('#start-action', 'fail');

    const [id] = await startFromPage(page, 'happy', 'choreography').catch(async () => {
      throw new Error(await page.textContent('main').then(String));
    });

    await page.waitForSelector(`.panel[data-checkout-id="${id}"][data-status=INTERVENTION]`, SLOW);
    await page.waitForSelector(`.panel[data-checkout-id="${id}"] [data-dead-letter]`, SLOW);
    expect(await page.textContent(`.panel[data-checkout-id="${id}"] [data-field=failureReason]`)).toContain(
      'notifications.send-welcome-email',
    );
    expect(await page.$$(`.panel g.entry[data-kind=dead-lettered]`)).toHaveLength(1);
    await screenshot('email-intervention');

    await page.goto(`${app.url}/console/#operate`);
    await page.click('button[data-action=clear-faults]');
    await page.waitForSelector('[data-faults=none]');
    // The participants, asked for their status: the run's answer, with no lab of their own.
    for (const participant of ['card-gateway', 'fiscal-authority']) {
      expect(await page.textContent(`li[data-participant=${participant}][data-state=up]`)).toContain('without a lab');
    }
    const deadLetter = page.locator('li[data-dead-letter]', { has: page.locator(`a[href="#watch/${id}"]`) });
    await deadLetter.locator('button[data-action=redrive]').click();
    // What the redrive did is judged by its effect, on the page, below: a notice drawn into a view
    // that the operate page redraws meanwhile can go unseen on a slow machine.
    await page.goto(`${app.url}/console/#watch/${id}`);

    await page.waitForSelector(`.panel[data-checkout-id="${id}"][data-status=COMPLETED]`, SLOW);
    expect(await client.effects(id)).toEqual({ payment: 'captured', entitlement: 'active', emails: 1 });
    await screenshot('email-redriven-completed');
  });

  it('when opened without the operator token, then it shows no operator control anywhere, even for a checkout in INTERVENTION', async () => {
    app.get(Faults).set([{ point: 'consumer:notifications.send-welcome-email', action: 'fail' }]);
    const { page, screenshot } = await open();
    await page.waitForSelector('#admin-token');
    expect(await page.$$('#start-point')).toHaveLength(0);
    expect(await page.$$('#start-scenario option[value=blocked]')).toHaveLength(0);

    // Started by the buyer from this page: it reads its own checkout with the buyer's token.
    const [id] = await startFromPage(page, 'happy', 'choreography');
    await page.waitForSelector(`.panel[data-checkout-id="${id}"][data-status=INTERVENTION]`, SLOW);
    app.get(Faults).clear();

    expect(await page.$$('[data-operator], button[data-action]')).toHaveLength(0);
    await screenshot('no-token');
    await page.goto(`${app.url}/console/#operate`);
    await page.waitForSelector('main .notice');
    expect(await page.textContent('main')).toContain('Enter the operator token');
    expect(await page.$$('[data-operator], button[data-action]')).toHaveLength(0);
  });

  it('when the API refuses the input, then its own messages show next to the fields', async () => {
    const { page, screenshot } = await open('', { allowed: [/status of 400/] });
    await enterAdminToken(page);
    // The plans arrive only once the buyer has typed: what they typed must stay as typed.
    let releasePlans!: () => void;
    const plansHeld = new Promise<void>((resolve) => (releasePlans = resolve));
    await page.route('**/plans', async (route) => {
      await plansHeld;
      await route.continue();
    });
    await page.goto(`${app.url}/console/#start`);
    await page.waitForSelector('#start-email');

    await page.fill('#start-email', 'not-an-email');
    await page.fill('#start-country', 'XX');
    releasePlans();
    await page.waitForSelector('#start-planId option', { state: 'attached' });
    expect(await page.inputValue('#start-email')).toBe('not-an-email');
    await page.getByRole('button', { name: 'Start' }).click();

    await page.waitForSelector('[data-error-for=email]:not(:empty)');
    expect(await page.textContent('[data-error-for=email]')).toBe('email must be an email address');
    expect(await page.textContent('[data-error-for=country]')).toContain('ISO 3166-1 alpha-2');

    await page.fill('#start-email', `ok-${Date.now()}@example.com`);
    await page.fill('#start-country', 'PT');
    await page.selectOption('#start-point', 'step:billing.capture-payment');
    await page.fill('#start-times', '0');
    await page.getByRole('button', { name: 'Start' }).click();

    await page.waitForSelector('[data-error-for=times]:not(:empty)');
    expect(await page.textContent('[data-error-for=times]')).toContain('times must not be less than 1');
    expect(page.url()).toContain('#start');
    await screenshot('bad-input');
  });

  it('when listing, then the newest checkouts come first with mode, status and duration, and the filters apply', async () => {
    const user = await client.createUser();
    const first = await client.start({ userId: user.id, mode: 'orchestration' });
    const second = await client.start({ userId: user.id, mode: 'choreography' });
    await Promise.all([client.until(first, ['COMPLETED']), client.until(second, ['COMPLETED'])]);
    const { page, screenshot } = await open();
    await enterAdminToken(page);
    await page.goto(`${app.url}/console/#list`);

    await page.waitForSelector(`tr[data-checkout-id="${second}"]`);
    const order = await page.$$eval('tr[data-checkout-id]', (rows) =>
      rows.map((r) => r.getAttribute('data-checkout-id')),
    );
    expect(order.indexOf(second)).toBeLessThan(order.indexOf(first));
    expect(await page.textContent(`tr[data-checkout-id="${second}"]`)).toMatch(/choreography.*COMPLETED.*\d+ (ms|s)/);

    await page.selectOption('#list-mode', 'orchestration');
    await page.waitForSelector(`tr[data-checkout-id="${first}"]`);
    expect(await page.$$(`tr[data-checkout-id="${second}"]`)).toHaveLength(0);
    const modes = await page.$$eval('tr[data-checkout-id] td:nth-child(3)', (cells) => cells.map((c) => c.textContent));
    expect(new Set(modes)).toEqual(new Set(['◆ orchestration']));
    await screenshot('list');
  });

  it('when comparing, then the latest comparison is drawn with its machine and date', async () => {
    const { page, screenshot } = await open('#compare');

    await page.waitForSelector('svg.chart');

    expect(await page.$$('svg.chart')).toHaveLength(3);
    expect(await page.getAttribute('.measured', 'data-measured')).toBe(COMPARISON.measuredAt);
    // Read anonymously: the machine's size, not its name (the operator's to read).
    expect(await page.textContent('.measured')).toContain('a machine of 2 × Test CPU');
    expect(await page.textContent('.measured')).not.toContain('bench-box');
    expect(await page.textContent('main')).toContain('a step times out after its work');
    await screenshot('compare');
  });

  it('when used at phone width, then a checkout is started and watched on a page no wider than the screen', async () => {
    const { page, screenshot } = await open('', { width: 375, height: 800 });

    const [id] = await startFromPage(page, 'unlicensed', 'orchestration');

    await page.waitForSelector(`.panel[data-checkout-id="${id}"][data-status=FAILED]`, SLOW);
    await page.waitForSelector('.live[data-live=no]', SLOW);
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
    expect(await page.textContent('[data-field=failureReason]')).toBe('not-licensed');
    await screenshot('phone-watch');
  });

  it('when the page is served, then its policy allows its own scripts and styles and nothing else', async () => {
    const response = await app.http().get('/console/').expect(200);

    const policy = response.headers['content-security-policy'];
    expect(policy).toContain("script-src 'self'");
    expect(policy).toContain("style-src 'self'");
    expect(policy).not.toMatch(/unsafe-inline|https:|\*/);
    expect(response.text).toContain('<script type="module" src="/console/app.js">');
  });
});

describe('The console without ADMIN_TOKEN', () => {
  let app: TestApp;
  let browser: Browser;
  let empty: string;

  beforeAll(async () => {
    empty = mkdtempSync(path.join(tmpdir(), 'compare-'));
    [app, browser] = await Promise.all([
      TestApp.start({ env: { ADMIN_TOKEN: '', COMPARE_RESULTS_DIR: empty } }),
      launchChromium(),
    ]);
  });
  afterAll(async () => {
    await browser?.close();
    await app?.stop();
    rmSync(empty, { recursive: true, force: true });
  });

  it('when the app runs without ADMIN_TOKEN, then the console says it is read-only and offers nothing to operate', async () => {
    const { page, problems, screenshot, close } = await openPage(browser, `${app.url}/console/#operate`);

    await page.waitForSelector('[data-access=read-only]');

    expect(await page.textContent('main')).toContain('Read-only');
    expect(await page.$$('#admin-token, [data-operator], button[data-action]')).toHaveLength(0);
    await screenshot('read-only');
    await close();
    expect(problems).toEqual([]);
  });

  it('when no comparison was run, then GET /comparisons/latest answers 404 saying how to make one', async () => {
    const { body } = await app.http().get('/comparisons/latest').expect(404);

    expect(body.message).toContain('npm run compare');
    expect((await app.http().get('/features').expect(200)).body).toEqual({ admin: false, faultInjection: true });
  });
});
