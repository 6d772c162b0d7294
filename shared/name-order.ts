import { compareText } from './text.ts';

/**
 * A sort key that orders names as `compareText` (lists' Intl.Collator: ignoring case and accents)
 * orders them, as a plain ASCII string DynamoDB can sort by: so a list reads its items in name order
 * straight from the table instead of sorting the whole environment in memory.
 *
 * Each character becomes its primary collation class: its rank among every BMP character (and the
 * emoji planes) sorted with that same collator, computed once per process (~80 ms, on the first
 * name written). The text is first put in compatibility decomposition (NFKD: ligatures, full-width
 * and super-script forms, Hangul syllables), and the letters the collator expands (æ → ae, ß → ss,
 * œ → oe, …) are expanded; characters the collator ignores (combining accents, controls) drop out.
 * Each class is written as three characters of an ordered ASCII alphabet, so `a < b` for keys is
 * `compareText(a, b) < 0` for names; equal keys are names the collator calls equal (ties go by id).
 * Characters outside the table (rare supplementary planes) follow every class, by code point.
 */

const ALPHABET_FIRST = 0x24; // '$': '#' (0x23), the key separator, sorts before every key character
const BASE = 0x7f - ALPHABET_FIRST; // 91 characters: '$' … '~'
const MAX_WEIGHT = BASE ** 3 - 1;
/** The supplementary code points ranked with the BMP: emoji and pictographs (sorted among symbols by the collator). */
const EXTRA_RANGES: [number, number][] = [[0x1f000, 0x1faff]];

interface Table {
  rank: Map<number, number>;
  classes: number;
  expansions: Map<number, string>;
}
let table: Table | undefined;

function buildTable(): Table {
  const codes: number[] = [];
  for (let c = 0; c <= 0xffff; c++) if (c < 0xd800 || c > 0xdfff) codes.push(c);
  for (const [from, to] of EXTRA_RANGES) for (let c = from; c <= to; c++) codes.push(c);
  const ranked = codes.map((c) => String.fromCodePoint(c)).filter((ch) => compareText(ch, '') !== 0);
  ranked.sort((a, b) => compareText(a, b) || a.codePointAt(0)! - b.codePointAt(0)!);
  const rank = new Map<number, number>();
  let r = 0;
  ranked.forEach((ch, i) => {
    if (i && compareText(ranked[i - 1], ch) !== 0) r++;
    rank.set(ch.codePointAt(0)!, r + 1);
  });
  // Letters the collator reads as two (æ as "ae"): found by asking it, among Latin letters NFKD keeps whole.
  const expansions = new Map<number, string>();
  const pairs = [...'abcdefghijklmnopqrstuvwxyz'].flatMap((x) => [...'abcdefghijklmnopqrstuvwxyz'].map((y) => x + y));
  for (let c = 0xc0; c <= 0x24f; c++) {
    const ch = String.fromCodePoint(c);
    if (ch.normalize('NFKD') !== ch) continue;
    const as = pairs.find((p) => compareText(ch, p) === 0);
    if (as) expansions.set(c, as);
  }
  return { rank, classes: r + 1, expansions };
}

const encode = (w: number) => {
  const v = Math.min(w, MAX_WEIGHT);
  return String.fromCharCode(
    ALPHABET_FIRST + Math.floor(v / BASE ** 2),
    ALPHABET_FIRST + (Math.floor(v / BASE) % BASE),
    ALPHABET_FIRST + (v % BASE),
  );
};

/** The weight of one code point (0: ignorable), outside the table by code point after every class. */
function weight(t: Table, c: number): number {
  const r = t.rank.get(c);
  if (r !== undefined) return r;
  if (c <= 0xffff) return 0; // ranked BMP characters are all in the table; the rest the collator ignores
  const ch = String.fromCodePoint(c);
  return compareText(ch, '') === 0 ? 0 : t.classes + 1 + c;
}

/** The order key of a name (`null`/`undefined` order as the empty name, first). */
export function nameOrderKey(text: string | null | undefined): string {
  if (!text) return '';
  const t = (table ??= buildTable());
  let out = '';
  for (const ch of text.normalize('NFKD')) {
    const c = ch.codePointAt(0)!;
    const expanded = t.expansions.get(c);
    for (const part of expanded ?? ch) {
      const w = weight(t, part.codePointAt(0)!);
      if (w) out += encode(w);
    }
  }
  return out;
}
