export type UserStatus = 'active' | 'blocked';

/** A refused buyer's reason: `unknown-user`, `user-blocked`, or the reason of a refusal the step was told to give. */
export type BuyerVerdict = { verified: true; country: string } | { verified: false; reason: string };

/** Who may buy: a user who exists and is not blocked. Verifying changes nothing. */
export function verifyBuyer(user: { status: UserStatus; country: string } | undefined): BuyerVerdict {
  if (!user) return { verified: false, reason: 'unknown-user' };
  if (user.status === 'blocked') return { verified: false, reason: 'user-blocked' };
  return { verified: true, country: user.country };
}
