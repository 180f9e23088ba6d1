import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateBillingInvoices1795970010200 implements MigrationInterface {
  name = 'CreateBillingInvoices1795970010200';

  async up(db: QueryRunner): Promise<void> {
    // The invoice the fiscal authority authorised for a checkout, one at most, as billing keeps
    // it: its number, when it was authorised (the cancel window runs from there), and how a
    // refund reversed it, by a cancel or by a return note.
    await db.query(`
      CREATE TABLE billing.invoices (
        checkout_id        uuid        NOT NULL,
        invoice_id         text        NOT NULL,
        number             text        NOT NULL,
        authorized_at      timestamptz NOT NULL,
        amount_cents       integer     NOT NULL,
        currency           char(3)     NOT NULL,
        status             text        NOT NULL,
        return_note_id     text,
        return_note_number text,
        reversed_at        timestamptz,
        correlation_id     text,
        created_at         timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT pk_billing_invoices PRIMARY KEY (checkout_id),
        CONSTRAINT ck_billing_invoices_status CHECK (status IN ('issued', 'cancelled', 'reversed')),
        CONSTRAINT ck_billing_invoices_return_note CHECK ((status = 'reversed') = (return_note_id IS NOT NULL))
      )`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE billing.invoices`);
  }
}
