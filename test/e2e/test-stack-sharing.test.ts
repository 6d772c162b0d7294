import { beforeAll, describe, expect, it } from 'vitest';
import { useTestStack } from '../helpers/stack.ts';

/**
 * Files of a worker share a started stack when they ask for the same settings (test/helpers/stack.ts).
 * A file that fills its settings in a hook of its own (a stub's address, known once it listens) asks
 * for them then, not when it is loaded: it must not be handed the stack of a file without them.
 */
describe('a stack started without the settings', () => {
  const ref = useTestStack();
  it('is started', () => {
    expect(ref.stack.config.HETZNER_API_BASE_URL).not.toBe('http://127.0.0.1:9/hetzner/v1');
  });
});

describe('a stack asked for with settings filled in a hook', () => {
  const env: Record<string, string> = {};
  beforeAll(() => {
    env.HETZNER_API_BASE_URL = 'http://127.0.0.1:9/hetzner/v1';
  });
  const ref = useTestStack(env);
  it('has those settings', () => {
    expect(ref.stack.config.HETZNER_API_BASE_URL).toBe('http://127.0.0.1:9/hetzner/v1');
  });
});
