import ipaddr from 'ipaddr.js';

/**
 * What the search index holds of an item (docs/decisions/0975): a pure function of the item and
 * optional extra texts, so every write path, the rebuild and the reader compute the same entries.
 *
 * A text is folded (NFKC, lower case) and cut into tokens at separators: `-`, `_`, `.`, `/`,
 * white space and every character up to `#` (the sort key's separator, so a term never holds one and
 * an exact term sorts before every longer one). An entry's place is:
 * - `=<term>`: a whole value (its tokens joined by `-`) or one of its tokens, for exact and prefix
 *   matches (a `begins_with` Query reads exact terms first, then longer ones in order);
 * - `~<suffix>`: a suffix of a token (at least 3 characters, not the token itself), for a match
 *   inside a token (a substring is a prefix of a suffix);
 * - `@<octets>|<cidr>`: a network under the whole octets of its prefix (`@10.0.1.|10.0.1.128/25`,
 *   `@10.0.|10.0.4.0/22`, `@|0.0.0.0/0`), so the networks holding an address are four exact ranges and
 *   the networks inside a CIDR one range, never the environment's every network.
 * Bounded per item (a write's transaction holds them all): at most MAX_TERMS terms and MAX_SUFFIXES
 * suffixes, the first fields first (name before tags before extras).
 */

export const SEARCH_KINDS = ['service', 'service_floor', 'network'] as const;
export type SearchKind = (typeof SEARCH_KINDS)[number];

/** A text an item is found by: the field it is in (as a client names it) and its value. */
export interface SearchText {
  field: string;
  value: string;
}
/** One index entry of an item: its place (the sort key's part) and the text it comes from. */
export interface SearchEntry extends SearchText {
  place: string;
}

export const MAX_TERMS = 20;
export const MAX_SUFFIXES = 12;
/** The longest term kept (a longer value is indexed by its first characters). */
export const TERM_LENGTH = 64;
/** Suffixes start 1 character into a token of at most this many characters, and keep at least MIN_SUFFIX. */
const SUFFIXED_TOKEN = 24;
export const MIN_SUFFIX = 3;

// biome-ignore lint/suspicious/noControlCharactersInRegex: the separators include every character up to '#'.
const SEPARATORS = /[\s\x00-\x23\-_./]+/u;

/** The tokens of a text, folded. */
export const tokensOf = (text: string): string[] =>
  text
    .normalize('NFKC')
    .toLowerCase()
    .split(SEPARATORS)
    .filter(Boolean)
    .map((t) => t.slice(0, TERM_LENGTH));

/** A whole text as one term: its tokens joined by `-` ('' when it has none). */
export const termOf = (text: string): string => tokensOf(text).join('-').slice(0, TERM_LENGTH);

/** The texts of an item, by kind, in the order its entries are capped: name first. */
export function searchTexts(kind: SearchKind, item: Record<string, unknown>, extras: SearchText[] = []): SearchText[] {
  const text = (field: string, value: unknown): SearchText[] =>
    typeof value === 'string' && value.trim() ? [{ field, value }] : [];
  const list = (field: string, value: unknown): SearchText[] =>
    Array.isArray(value) ? value.flatMap((v) => text(field, v)) : [];
  const own =
    kind === 'service'
      ? [...text('name', item.name), ...list('tags', item.tags)]
      : kind === 'service_floor'
        ? [
            ...text('hostname', item.hostname),
            ...text('ip_address', item.ip_address),
            ...list('ip_addresses', item.ip_addresses),
            ...list('tags', item.tags),
          ]
        : [...text('name', item.name), ...text('cidr', item.cidr)];
  return [...own, ...extras.flatMap((e) => text(e.field, e.value))];
}

/** Addresses and prefixes are found whole: their parts are not words. */
const WHOLE_ONLY = new Set(['ip_address', 'ip_addresses', 'cidr']);

/** The place of a network under its prefix's whole octets, or none for a text that is not an IPv4 CIDR. */
export function containmentPlace(cidr: string): string | undefined {
  if (!ipaddr.IPv4.isValidCIDRFourPartDecimal(cidr)) return undefined;
  const [, bits] = ipaddr.IPv4.parseCIDR(cidr);
  const network = ipaddr.IPv4.networkAddressFromCIDR(cidr);
  return `@${bucketOf(network.octets, bits)}|${network.toString()}/${bits}`;
}

/** The whole octets of a prefix of `bits` bits, each followed by a dot (`10.0.` for a /16 to /23). */
export const bucketOf = (octets: number[], bits: number) =>
  octets
    .slice(0, Math.floor(bits / 8))
    .map((o) => `${o}.`)
    .join('');

/**
 * The index entries of an item of `kind` (a service, floor or network as stored) and of `extras`
 * (e.g. its custom fields' texts): distinct places, bounded (see the top of this file).
 */
export function searchEntries(
  kind: SearchKind,
  item: Record<string, unknown>,
  extras: SearchText[] = [],
): SearchEntry[] {
  const terms = new Map<string, SearchEntry>();
  const suffixes = new Map<string, SearchEntry>();
  const add = (into: Map<string, SearchEntry>, cap: number, place: string, t: SearchText) => {
    if (into.size < cap && !into.has(place)) into.set(place, { place, ...t });
  };
  for (const t of searchTexts(kind, item, extras)) {
    const tokens = tokensOf(t.value);
    if (!tokens.length) continue;
    add(terms, MAX_TERMS, `=${termOf(t.value)}`, t);
    if (WHOLE_ONLY.has(t.field)) continue;
    for (const token of tokens) add(terms, MAX_TERMS, `=${token}`, t);
    for (const token of tokens.filter((k) => k.length <= SUFFIXED_TOKEN))
      for (let i = 1; token.length - i >= MIN_SUFFIX; i++) add(suffixes, MAX_SUFFIXES, `~${token.slice(i)}`, t);
  }
  const containment = kind === 'network' && typeof item.cidr === 'string' ? containmentPlace(item.cidr) : undefined;
  return [
    ...terms.values(),
    ...suffixes.values(),
    ...(containment ? [{ place: containment, field: 'cidr', value: String(item.cidr) }] : []),
  ];
}
