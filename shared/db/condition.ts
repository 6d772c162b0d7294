/**
 * A condition on an item's write, beside the live rule's. Its expression may be joined to others
 * with AND as it is: any OR in it is within parentheses (DynamoDB refuses redundant ones, so they
 * are not added around a whole).
 */
export type Condition = { expression: string; values: Record<string, unknown>; names?: Record<string, string> };

/** Conditions that must all hold (undefined ones left out); undefined when none is left. */
export function allOf(...conditions: (Condition | undefined)[]): Condition | undefined {
  const all = conditions.filter((c): c is Condition => Boolean(c));
  if (all.length <= 1) return all[0];
  return {
    expression: all.map((c) => c.expression).join(' AND '),
    values: Object.assign({}, ...all.map((c) => c.values)),
    names: Object.assign({}, ...all.map((c) => c.names ?? {})),
  };
}

/** A condition as a write's parameters (DynamoDB refuses an empty map of names or values). */
export function conditionParams(c: Condition) {
  const nonEmpty = <T extends object>(m: T | undefined) => (m && Object.keys(m).length ? m : undefined);
  return {
    ConditionExpression: c.expression,
    ExpressionAttributeNames: nonEmpty(c.names),
    ExpressionAttributeValues: nonEmpty(c.values),
  };
}

/** A field absent or null (e.g. an invitation not revoked): with placeholder names, joinable with AND. */
export function isUnset(field: string): Condition {
  const name = `#unset_${field}`;
  return {
    expression: `(attribute_not_exists(${name}) OR ${name} = :null)`,
    names: { [name]: field },
    values: { ':null': null },
  };
}

/**
 * An expression as one operand of AND: within parentheses when an OR in it stands outside any
 * (`a OR b AND c` would bind otherwise); left as it is when it needs none, as DynamoDB refuses
 * redundant parentheses.
 */
export function grouped(expression: string): string {
  let depth = 0;
  for (const token of expression.split(/([()]|\bOR\b)/i)) {
    if (token === '(') depth++;
    else if (token === ')') depth--;
    else if (depth === 0 && /^OR$/i.test(token)) return `(${expression})`;
  }
  return expression;
}
