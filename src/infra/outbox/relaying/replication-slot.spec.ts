import { WalClock } from './slot.metrics';
import { lsnBefore, lsnValue, slotNameFor } from './replication-slot';

describe('The logical relay slot', () => {
  it('when an LSN is read, then its two halves make one number, and the one before it borrows across them', () => {
    expect(lsnValue('16/B374D848')).toBe((0x16n << 32n) + 0xb374d848n);
    expect(lsnBefore('16/B374D848')).toBe('16/B374D847');
    expect(lsnBefore('1/0')).toBe('0/FFFFFFFF');
  });

  it("when no slot is named, then it is the database's, made of the characters a slot may have, at most 63", () => {
    expect(slotNameFor(undefined, 'postgres://app@db:5432/checkout')).toBe('outbox_relay_checkout');
    expect(slotNameFor(undefined, 'postgres://app@db/Shop-EU.1')).toBe('outbox_relay_shop_eu_1');
    expect(slotNameFor(undefined, `postgres://app@db/${'x'.repeat(80)}`)).toHaveLength(63);
    expect(slotNameFor('mine', 'postgres://app@db/checkout')).toBe('mine');
  });

  it('when the WAL passes the confirmed position, then the age counts from the first reading that saw it past, and is 0 once confirmed', () => {
    const clock = new WalClock();
    expect(clock.ageOf(1_000, 0, 0)).toBe(0); // confirmed up to the end
    expect(clock.ageOf(1_500, 500, 10_000)).toBe(0); // first seen past now
    expect(clock.ageOf(2_000, 1_000, 25_000)).toBe(15); // still unconfirmed since 10 s
    expect(clock.ageOf(2_500, 700, 30_000)).toBe(5); // confirmed to 1,800: past it since 25 s
    expect(clock.ageOf(2_500, 0, 31_000)).toBe(0);
  });
});
