import { listeningMessage } from './listening-message';

describe('listeningMessage', () => {
  it('when the process serves the API, then it names the API, the docs and the console', () => {
    expect(listeningMessage(3000, new Set(['api', 'relay']))).toBe(
      'Listening on http://localhost:3000: the API, its docs at http://localhost:3000/docs and the console at http://localhost:3000/console',
    );
  });

  it('when it does not, then it says that only /health and /metrics answer', () => {
    expect(listeningMessage(8080, new Set(['worker']))).toBe(
      'Listening on http://localhost:8080: /health and /metrics only (this process does not run the api role)',
    );
  });
});
