import type { LoggerService } from '@nestjs/common';
import { type DestinationStream, pino, type Logger } from 'pino';
import { redactUrl } from '#warden/kernel';
import type { LogLevel } from '../config/warden-config.js';

interface LoggedRequest {
  readonly method?: string;
  readonly url?: string;
  readonly host?: string;
  readonly ip?: string;
  readonly socket?: { readonly remotePort?: number };
}

/**
 * Structured JSON logs on stderr (stdout belongs to CLI results). Header values that carry
 * secrets are redacted wherever they appear, and URLs are logged without their query string
 * (redactUrl): a request's URL here, every other URL where it is logged. Requests themselves
 * are logged by route, never by URL (access-log.ts).
 */
export function createRootLogger(level: LogLevel, destination: DestinationStream = pino.destination({ fd: 2, sync: true })): Logger {
  return pino(
    {
      level,
      base: { service: 'warden' },
      timestamp: pino.stdTimeFunctions.isoTime,
      serializers: {
        // A request in Fastify's own lines (a 5xx its error handler logs; it takes this logger's
        // serializers over its own).
        req: (req: LoggedRequest) => ({
          method: req.method,
          url: req.url === undefined ? undefined : redactUrl(req.url),
          host: req.host,
          remoteAddress: req.ip,
          remotePort: req.socket?.remotePort,
        }),
      },
      redact: {
        paths: [
          'req.headers["x-api-key"]',
          'headers["x-api-key"]',
          'req.headers.authorization',
          'headers.authorization',
          'req.headers.cookie',
          'headers.cookie',
          '*.apiKey',
          '*.secret',
          '*.password',
        ],
        censor: '[redacted]',
      },
    },
    destination,
  );
}

/**
 * Nest's own start-up narration: a line per module initialised and per route mapped, about 180
 * lines at `info` before "warden started", where a newcomer looked for that line, and its
 * "successfully started", written before the server listens (so also when the port is taken). At
 * `debug` (WARDEN_LOG_LEVEL=debug shows them).
 */
const NEST_START_UP_CONTEXTS = new Set(['InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestFactory', 'NestApplication']);

/**
 * Nest logs a failed `listen` as an error before rethrowing it; the server then fails start-up
 * with one line of its own naming the variable to change (docs/operations.md, "Start-up"), so
 * Nest's line is only at `debug`.
 */
const isNestListenFailure = (message: unknown, context?: string): boolean => context === 'NestApplication' && /^Error: listen /.test(String(message));

/** Nest's logger interface over pino. */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}
  log(message: unknown, context?: string): void {
    this.write(context !== undefined && NEST_START_UP_CONTEXTS.has(context) ? 'debug' : 'info', message, context);
  }
  error(message: unknown, trace?: string, context?: string): void {
    this.write(isNestListenFailure(message, context) ? 'debug' : 'error', message, context, trace);
  }
  warn(message: unknown, context?: string): void {
    this.write('warn', message, context);
  }
  debug(message: unknown, context?: string): void {
    this.write('debug', message, context);
  }
  verbose(message: unknown, context?: string): void {
    this.write('trace', message, context);
  }
  fatal(message: unknown, context?: string): void {
    this.write('fatal', message, context);
  }

  private write(level: 'info' | 'error' | 'warn' | 'debug' | 'trace' | 'fatal', message: unknown, context?: string, trace?: string): void {
    const fields: Record<string, unknown> = {};
    if (context) fields['context'] = context;
    if (trace) fields['trace'] = trace;
    if (typeof message === 'object' && message !== null) this.logger[level]({ ...fields, ...message });
    else this.logger[level](fields, String(message));
  }
}
