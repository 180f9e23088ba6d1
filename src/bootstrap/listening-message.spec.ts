import { listeningMessage } from './listening-message';

describe('listeningMessage', () => {
  it('when the process serves the API, then it names the API and the docs', () => {
    expect(listeningMessage(3000, new Set(['api', 'relay']))).toBe(
      'Listening on http://localhost:3000: the API, with its docs at http://localhost:3000/docs',
    );
  });

  it('when it does not, then it says that only /health and /metrics answer', () => {
    expect(listeningMessage(8080, new Set(['worker']))).toBe(
      'Listening on http://localhost:8080: /health and /metrics only (this process does not run the api role)',
    );
  });
});
