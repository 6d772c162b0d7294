import { describe, expect, it } from 'vitest';
import { nameOrderKey } from '#shared/name-order';
import { compareText } from '#shared/text';

/** The listing order key orders names exactly as the lists' collator does. */

const POOLS = [
  [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -_.,:;!?/()[]{}@#$%&*+=<>|~^`\'"\\'],
  [...'áàâäãåÁÀÂÄéèêëÉíìîïóòôöõøÓØúùûüÚçÇñÑßẞæÆœŒĳŁłđĐþÞðÐſǅ'],
  [...'αβγδΑΒΓάέΩωабвгдеёжзАБВЁЖЗ'],
  [...'日本語中文한국어ひらがなカタカナ'],
  ['😀', '🚀', '✓', '€', '£', '½', 'ﬁ', '²', '\u0301', '\u200b', 'Ⅻ', '①', 'ｆ', '٣'],
];
const ALL = POOLS.flat();

/** A small deterministic generator (mulberry32), so a failure is reproducible. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('nameOrderKey', () => {
  it('orders 50,000 random pairs of names as compareText does (case, accents, punctuation, ligatures, scripts, emoji)', () => {
    const rnd = random(26);
    const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)];
    const name = () =>
      Array.from({ length: 1 + Math.floor(rnd() * 8) }, () => pick(rnd() < 0.5 ? POOLS[0] : ALL)).join('');
    const wrong: string[] = [];
    for (let i = 0; i < 50_000; i++) {
      const a = name();
      const b = rnd() < 0.3 ? [...a].slice(0, Math.floor(rnd() * (a.length + 1))).join('') + name() : name();
      const want = Math.sign(compareText(a, b));
      const [ka, kb] = [nameOrderKey(a), nameOrderKey(b)];
      if (want !== (ka < kb ? -1 : ka > kb ? 1 : 0)) wrong.push(JSON.stringify([a, b]));
    }
    expect(wrong.slice(0, 10)).toEqual([]);
  });

  it('makes names the collator calls equal the same key, and keeps keys to printable ASCII above the separator', () => {
    expect(nameOrderKey('Straße')).toBe(nameOrderKey('STRASSE'));
    expect(nameOrderKey('Æther')).toBe(nameOrderKey('aether'));
    expect(nameOrderKey('Ångström')).toBe(nameOrderKey('angstrom'));
    expect(nameOrderKey(null)).toBe('');
    expect(nameOrderKey('a-b')).not.toBe(nameOrderKey('ab'));
    expect(nameOrderKey('日本 x😀')).toMatch(/^[\x24-\x7e]+$/);
  });
});
