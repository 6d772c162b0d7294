import { Logger } from '@aws-lambda-powertools/logger';
import { config } from './config.ts';
import { currentScope } from './invocation.ts';

type Level = 'debug' | 'info' | 'warn' | 'error';
const RANK = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;
const POWERTOOLS_LEVEL = { debug: 'DEBUG', info: 'INFO', warn: 'WARN', error: 'ERROR', silent: 'SILENT' } as const;

let logger: Logger | undefined;
let level: keyof typeof POWERTOOLS_LEVEL | undefined;

/**
 * The one Powertools Logger of this process, made on the first line written (not at import: cold
 * start), with the service name and level of the configuration; the level follows a reloaded
 * configuration (the local runtime and tests re-read it).
 */
function powertools(): Logger {
  const c = config();
  logger ??= new Logger({ serviceName: c.POWERTOOLS_SERVICE_NAME, logLevel: POWERTOOLS_LEVEL[c.LOG_LEVEL] });
  if (level !== c.LOG_LEVEL) {
    level = c.LOG_LEVEL;
    logger.setLogLevel(POWERTOOLS_LEVEL[c.LOG_LEVEL]);
  }
  return logger;
}

/**
 * One JSON line per entry (Powertools' shape: level, message, timestamp, service), with the running
 * invocation's correlation id and cold-start flag: they come from the invocation's scope, so every
 * line of a request carries them and none leaks into the next request.
 */
function write(lvl: Level, message: string, fields?: Record<string, unknown>): void {
  // A line below the level costs nothing (the pipeline writes two debug lines per request).
  if (RANK[lvl] < RANK[config().LOG_LEVEL]) return;
  const scope = currentScope();
  const keys = scope ? { correlation_id: scope.correlation_id, cold_start: scope.cold_start } : {};
  powertools()[lvl](message, { ...keys, ...fields });
}

export const log = {
  debug: (m: string, f?: Record<string, unknown>) => write('debug', m, f),
  info: (m: string, f?: Record<string, unknown>) => write('info', m, f),
  warn: (m: string, f?: Record<string, unknown>) => write('warn', m, f),
  error: (m: string, f?: Record<string, unknown>) => write('error', m, f),
};

export const errorFields = (err: unknown) =>
  err instanceof Error ? { error: err.name, error_message: err.message, stack: err.stack } : { error: String(err) };
