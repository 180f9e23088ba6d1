import { Socket } from 'node:net';

/** Whether something accepts TCP connections at the URL's host and port, within `timeoutMs`. */
export function answers(url: string, defaultPort: number, timeoutMs = 1_500): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('error', () => done(false));
    socket.connect(Number(port || defaultPort), hostname.replace(/^\[|\]$/g, ''), () => done(true));
  });
}
