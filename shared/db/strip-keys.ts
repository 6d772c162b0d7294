/** Strips the key attributes from an item before it leaves the data layer. */
const KEY_ATTRIBUTES = [
  'PK',
  'SK',
  'GSI1PK',
  'GSI1SK',
  'GSI2PK',
  'GSI2SK',
  'GSI3PK',
  'GSI3SK',
  'expires_at_epoch',
  'type',
];
export function stripKeys(item: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(item).filter(([k]) => !KEY_ATTRIBUTES.includes(k)));
}
