import { SmtpSink } from './smtp-sink';

/**
 * An SMTP sink as a process of its own, for a host of the rig (test/support/hosts.ts): listens on
 * the address given, prints its URL as the first line, then one JSON line per message received
 * (envelope and headers), right after it answered that it took it.
 */
void (async () => {
  const sink = await SmtpSink.start(process.argv[2]);
  sink.onReceived = (mail) =>
    process.stdout.write(`${JSON.stringify({ from: mail.from, to: mail.to, headers: [...mail.headers] })}\n`);
  process.stdout.write(`${JSON.stringify({ url: sink.url })}\n`);
})();
