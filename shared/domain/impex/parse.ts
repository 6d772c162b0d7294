import type { Path, Problem } from './problems.ts';

/** One problem of an uploaded document: where (a JSON pointer, and the line when the text is known) and what. */
export interface ImportError {
  /** JSON pointer (RFC 6901) into the document, e.g. `/spec/services/3/port`; '' is the whole document. */
  path: string;
  /** 1-based line in the uploaded text, or null when not known (no text, or nothing there). */
  line: number | null;
  message: string;
}

export const pointer = (path: Path) =>
  path.map((p) => `/${String(p).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');

/** An error with no line (a plan's errors: the document is no longer text by then). */
export const importError = (p: Problem): ImportError => ({ path: pointer(p.path), line: null, message: p.message });
