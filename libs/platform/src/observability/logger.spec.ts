import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createRootLogger, PinoNestLogger } from './logger.js';

/** A pino logger at `level` whose lines are collected, parsed. */
function collecting(level: string) {
  const lines: Array<{ level: number; context?: string; msg: string }> = [];
  const logger = pino({ level }, { write: (line: string) => void lines.push(JSON.parse(line) as (typeof lines)[number]) });
  return { lines, nest: new PinoNestLogger(logger) };
}

describe('PinoNestLogger', () => {
  it("logs Nest's start-up narration (modules, routes, 'successfully started') and its failed listen at debug, and its other messages as they come", () => {
    const { lines, nest } = collecting('debug');
    nest.log('AppModule dependencies initialized', 'InstanceLoader');
    nest.log('Mapped {/api/v1/items, POST} route', 'RouterExplorer');
    nest.log('Nest application successfully started', 'NestApplication');
    nest.error('Error: listen EADDRINUSE: address already in use 0.0.0.0:3000', undefined, 'NestApplication');
    nest.log('Reactor caught up', 'Projections');
    nest.error('Error: listen to this', undefined, 'ItemsController');
    expect(lines.map((l) => [l.level, l.context])).toEqual([
      [20, 'InstanceLoader'],
      [20, 'RouterExplorer'],
      [20, 'NestApplication'],
      [20, 'NestApplication'],
      [30, 'Projections'],
      [50, 'ItemsController'],
    ]);
    const quiet = collecting('info');
    quiet.nest.log('Mapped {/api/v1/items, POST} route', 'RouterExplorer');
    quiet.nest.log('Nest application successfully started', 'NestApplication');
    quiet.nest.error('Error: listen EADDRINUSE: address already in use 0.0.0.0:3000', undefined, 'NestApplication');
    quiet.nest.log('Reactor caught up', 'Projections');
    expect(quiet.lines.map((l) => l.msg)).toEqual(['Reactor caught up']);
  });

  it('redacts the headers that carry credentials (API key, bearer token, session cookie) wherever a line holds them', () => {
    const lines: string[] = [];
    const logger = createRootLogger('info', { write: (line: string) => void lines.push(line) });
    const headers = { 'x-api-key': 'wdn_secret-key', authorization: 'Bearer metrics-token-secret', cookie: 'warden_session=session-secret', accept: '*/*' };
    logger.info({ headers }, 'a line with headers');
    logger.info({ req: { headers } }, 'a request with headers');
    for (const line of lines) {
      for (const secret of ['wdn_secret-key', 'metrics-token-secret', 'session-secret']) expect(line).not.toContain(secret);
    }
    expect(JSON.parse(lines[0]!)).toMatchObject({ headers: { authorization: '[redacted]', cookie: '[redacted]', 'x-api-key': '[redacted]', accept: '*/*' } });
  });
});
