import Table from 'cli-table3';
import { yaml } from './on-first-use.ts';

export const FORMATS = ['table', 'json', 'yaml'] as const;
export type Format = (typeof FORMATS)[number];

/** A table column: a label and how to read the cell from a row. */
export interface Column<T> {
  label: string;
  value: (row: T) => unknown;
}

export const col = <T>(label: string, value: keyof T | ((row: T) => unknown)): Column<T> => ({
  label,
  value: typeof value === 'function' ? value : (row: T) => row[value],
});

function cell(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (Array.isArray(v)) return v.map(cell).join(', ');
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** Writes `data` to stdout: as JSON, YAML, or a table (`columns` for lists; a key/value table for one object). */
export function emit<T>(data: T | T[], format: Format, columns?: Column<T>[]): void {
  if (format === 'json') return void process.stdout.write(`${JSON.stringify(data, null, 2)}\n`);
  if (format === 'yaml') return void process.stdout.write(yaml().stringify(data));
  if (Array.isArray(data)) {
    if (!data.length) return void process.stderr.write('(none)\n');
    const cols = columns ?? Object.keys(data[0] as object).map((k) => col<T>(k, k as keyof T));
    const table = new Table({ head: cols.map((c) => c.label), style: { head: [], border: [] } });
    for (const row of data) table.push(cols.map((c) => cell(c.value(row))));
    return void process.stdout.write(`${table.toString()}\n`);
  }
  const table = new Table({ style: { head: [], border: [] } });
  const entries = columns ? columns.map((c) => [c.label, c.value(data as T)] as const) : Object.entries(data as object);
  for (const [k, v] of entries) table.push({ [k]: cell(v) });
  process.stdout.write(`${table.toString()}\n`);
}

/** A line for people (stderr, so that stdout stays the data for pipes). */
export const say = (line: string) => void process.stderr.write(`${line}\n`);
