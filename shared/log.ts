import { config } from './config';

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;
type Level = Exclude<keyof typeof LEVELS, 'silent'>;

/** One JSON line per entry, as CloudWatch Logs Insights wants them. */
function write(level: Level, message: string, fields: Record<string, unknown> = {}): void {
  if (LEVELS[level] < LEVELS[config().LOG_LEVEL]) return;
  const line = JSON.stringify({ level, message, time: new Date().toISOString(), ...fields });
  (level === 'error' || level === 'warn' ? process.stderr : process.stdout).write(line + '\n');
}

export const log = {
  debug: (m: string, f?: Record<string, unknown>) => write('debug', m, f),
  info: (m: string, f?: Record<string, unknown>) => write('info', m, f),
  warn: (m: string, f?: Record<string, unknown>) => write('warn', m, f),
  error: (m: string, f?: Record<string, unknown>) => write('error', m, f),
};

export const errorFields = (err: unknown) =>
  err instanceof Error ? { error: err.name, error_message: err.message, stack: err.stack } : { error: String(err) };
