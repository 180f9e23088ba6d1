/**
 * The key of a checkout's authorization, as the saga makes it (`<checkout id>:<step>`): every
 * attempt of the authorization uses it, and so does its void, which finds the authorization by it.
 */
export const authorizeKey = (checkoutId: string) => `${checkoutId}:billing.authorize-payment`;
