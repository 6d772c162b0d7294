import { describe, expect, it } from 'vitest';
import { parseDocument } from '#domain/impex';

/** One bad line of YAML is one error with its line, not the parser's cascade nor the schema problems that follow from it. */
const HEAD = 'apiVersion: infracatalog/v1\nkind: Environment\nspec:\n  services:\n    - name: api\n';

describe('a document that is not valid YAML', () => {
  it.each([
    [
      'a line indented one column short',
      `${HEAD}      port: 9090\n     tags: [prod]\n    - name: db\n`,
      7,
      'Not valid YAML or JSON: Sequence item without - indicator',
    ],
    [
      'a key out of line with its siblings',
      `${HEAD}    port: 9090\n    - name: db\n`,
      6,
      'Not valid YAML or JSON: All mapping items must start at the same column',
    ],
    [
      'an unclosed flow sequence',
      `${HEAD}      tags: [prod\n    - name: db\n      port: 1\n`,
      7,
      'Not valid YAML or JSON: Flow sequence in block collection must be sufficiently indented and end with a ]',
    ],
  ])('%s: exactly one error, at its line', async (_case, text, line, message) => {
    expect(await parseDocument(text)).toEqual({ document: null, errors: [{ path: '', line, message }] });
  });
});
