/**
 * A definition's `pattern`, a regular expression from a user, runs under RE2's linear-time engine
 * (re2js, a pure-JavaScript port: matching time grows with the value's length only, whatever the
 * pattern), so no pattern can hang a request (docs/decisions/0965). What RE2 cannot run
 * (backreferences, lookaround) is refused at definition time. A value must match the whole pattern.
 * re2js is imported at first use (infra/cdk/aliases.ts ships it beside the bundles).
 */

export type Matcher = (value: string) => boolean;

const load = () => import('re2js').then((m) => m.RE2JS);

/** Why `pattern` cannot be used (RE2's message), or undefined when it compiles. */
export async function patternProblem(pattern: string): Promise<string | undefined> {
  const RE2JS = await load();
  try {
    RE2JS.compile(pattern);
    return undefined;
  } catch (err) {
    return `Not a regular expression RE2 can run: ${err instanceof Error ? err.message : String(err)}`;
  }
}

/** The matchers of the definitions that have a pattern, by key (nothing is imported when none has one). */
export async function matchersOf(
  definitions: { key: string; pattern: string | null }[],
): Promise<Map<string, Matcher>> {
  const withPattern = definitions.filter((d) => d.pattern);
  const out = new Map<string, Matcher>();
  if (!withPattern.length) return out;
  const RE2JS = await load();
  for (const d of withPattern) {
    const compiled = RE2JS.compile(d.pattern!);
    out.set(d.key, (value) => compiled.matches(value));
  }
  return out;
}
