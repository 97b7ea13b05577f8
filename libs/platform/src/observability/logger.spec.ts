import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { PinoNestLogger } from './logger.js';

/** A pino logger at `level` whose lines are collected, parsed. */
function collecting(level: string) {
  const lines: Array<{ level: number; context?: string; msg: string }> = [];
  const logger = pino({ level }, { write: (line: string) => void lines.push(JSON.parse(line) as (typeof lines)[number]) });
  return { lines, nest: new PinoNestLogger(logger) };
}

describe('PinoNestLogger', () => {
  it("logs Nest's start-up narration (modules, routes) at debug, and its other messages at info", () => {
    const { lines, nest } = collecting('debug');
    nest.log('AppModule dependencies initialized', 'InstanceLoader');
    nest.log('Mapped {/api/v1/items, POST} route', 'RouterExplorer');
    nest.log('Nest application successfully started', 'NestApplication');
    expect(lines.map((l) => [l.level, l.context])).toEqual([
      [20, 'InstanceLoader'],
      [20, 'RouterExplorer'],
      [30, 'NestApplication'],
    ]);
    const quiet = collecting('info');
    quiet.nest.log('Mapped {/api/v1/items, POST} route', 'RouterExplorer');
    quiet.nest.log('Nest application successfully started', 'NestApplication');
    expect(quiet.lines.map((l) => l.msg)).toEqual(['Nest application successfully started']);
  });
});
