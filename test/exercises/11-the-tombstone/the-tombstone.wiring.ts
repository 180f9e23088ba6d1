import { Module, type OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { GrantAccess, type GrantOutcome } from '../../../src/modules/content/grant-access/grant-access.use-case';
import { RevokeAccess, type RevokeOutcome } from '../../../src/modules/content/revoke-access/revoke-access.use-case';
import { EntitlementsRepository } from '../../../src/modules/content/database/entitlements.repository';
import { implementation } from '../support/track';
import type { TheTombstone } from './exercise';

const answer = implementation<TheTombstone>(__dirname);

/**
 * Puts your decisions into the real content module: when the saga asks content to grant or revoke
 * a checkout's access, your `decideGrant` / `decideRevoke` decide, and the module carries the
 * decision out in its own transaction (licensing, rows, answers are the module's). Loaded into the
 * app beside AppModule; EXERCISE_TARGET says which answer.
 */
@Module({})
export class TheTombstoneWiring implements OnModuleInit {
  constructor(private readonly moduleRef: ModuleRef) {}

  onModuleInit(): void {
    const find = <T>(token: abstract new (...args: never[]) => T): T => this.moduleRef.get(token, { strict: false });
    const entitlements = find(EntitlementsRepository);
    const txHost = find<TransactionHost<TransactionalAdapterTypeOrm>>(TransactionHost);
    const grantAccess = find(GrantAccess);
    const revokeAccess = find(RevokeAccess);
    const grant = grantAccess.execute.bind(grantAccess);
    const revoke = revokeAccess.execute.bind(revokeAccess);

    grantAccess.execute = async (command): Promise<GrantOutcome> => {
      const existing = await entitlements.lockByCheckout(command.checkoutId);
      const decision = answer.decideGrant(existing);
      switch (decision.kind) {
        case 'refuse':
          return { outcome: 'refused', reason: decision.reason, isNew: !existing };
        case 'already-granted':
          // With no row, there is no entitlement to name: the answer names the checkout.
          return { outcome: 'granted', entitlementId: existing?.id ?? command.checkoutId, isNew: false };
        case 'grant':
          if (!existing) return grant(command); // the module's own grant: it checks the licence, writes the row
          // The module never grants over a revoked row; your decision does: the row is made active again.
          await txHost.tx.query(
            `UPDATE content.entitlements
                SET status = 'active', user_id = $2, plan_id = $3, granted_at = now(), revoked_at = NULL
              WHERE id = $1`,
            [existing.id, command.userId, command.planId],
          );
          return { outcome: 'granted', entitlementId: existing.id, isNew: true };
      }
    };

    revokeAccess.execute = async (command): Promise<RevokeOutcome> => {
      const existing = await entitlements.lockByCheckout(command.checkoutId);
      const decision = answer.decideRevoke(existing);
      const nothing = decision.kind === 'nothing-to-do' || (!existing && decision.kind === 'revoke');
      // Nothing is written: the answer says revoked, naming the row there is, if any.
      if (nothing) return { outcome: 'revoked', entitlementId: existing?.id, isNew: false } as RevokeOutcome;
      return revoke(command); // the module's own revoke: of the row there is, or a tombstone where there is none
    };
  }
}
