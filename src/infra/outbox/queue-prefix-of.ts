// A file of its own, free of Nest and TypeORM: tests that only read queues (test/support/quiet.ts)
// import it without loading the app's configuration.

/**
 * A queue's BullMQ prefix: `{<deployment>:<queue>}`, so its keys read `{d:q}:q:wait` and so on.
 * Redis Cluster hashes only what is inside the first braces: one slot per queue and deployment.
 */
export const queuePrefixOf = (deployment: string, queue: string): string => `{${deployment}:${queue}}`;
