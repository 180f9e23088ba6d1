/**
 * The key of a checkout's grant, as the saga makes it (`<checkout id>:<step>`): every attempt of
 * the grant uses it, and so does its revoke, whose tombstone it marks.
 */
export const grantKey = (checkoutId: string) => `${checkoutId}:content.grant-access`;
