import { describe, expect, it } from 'vitest';
import { isProjectItem, kindOf, restoreDiff } from '../../shared/domain/lifecycle/project-restore-scope.ts';

const P = 'p1';
const item = (PK: string, SK: string, extra: Record<string, unknown> = {}) => ({ PK, SK, ...extra });

describe('which items a project restore may write', () => {
  it.each([
    ['the project item', item('PROJECT#p1', 'PROJECT'), true],
    ['a service', item('PROJECT#p1', 'SERVICE#e#s'), true],
    ['a listing', item('PROJECT#p1', 'SERVICEBYNAME#e#k#s'), true],
    ['an import record (history stays as it is live)', item('PROJECT#p1', 'IMPEX#2026#r'), false],
    ['a staged-write journal', item('PROJECT#p1', 'STAGED#e#o#00000001'), false],
    ['an audit entry (its own partition)', item('PROJECT#p1#AUDIT', '2026#x'), false],
    ['its id lookup', item('ID#s', 'ID', { project_id: 'p1' }), true],
    ['its membership mirror', item('USER#u', 'MEMBERSHIP#p1', { project_id: 'p1' }), true],
    ["another project's service", item('PROJECT#p2', 'SERVICE#e#s'), false],
    ["another project's id lookup", item('ID#t', 'ID', { project_id: 'p2' }), false],
    ['an account', item('USER#u', 'ACCOUNT'), false],
  ])('%s: %s', (_, it, expected) => expect(isProjectItem(P, it)).toBe(expected));

  it.each([
    [item('PROJECT#p1', 'SERVICE#e#s'), 'SERVICE'],
    [item('ID#s', 'ID'), 'ID/ID'],
    [item('USER#u', 'MEMBERSHIP#p1'), 'USER/MEMBERSHIP'],
  ])('%o is counted as %s', (it, kind) => expect(kindOf(it)).toBe(kind));
});

describe('restoreDiff', () => {
  it('puts what the copy has otherwise or alone, deletes what only the live table has, and leaves other projects out on both sides', () => {
    const restored = [
      item('PROJECT#p1', 'SERVICE#e#a', { name: 'a', tags: ['x', 'y'] }),
      item('PROJECT#p1', 'SERVICE#e#b', { name: 'b' }),
      item('PROJECT#p1', 'SERVICE#e#c', { name: 'c' }),
      item('PROJECT#p2', 'SERVICE#e#z', { name: 'old z' }),
    ];
    const live = [
      item('PROJECT#p1', 'SERVICE#e#a', { tags: ['x', 'y'], name: 'a' }), // the same, attributes in another order
      item('PROJECT#p1', 'SERVICE#e#b', { name: 'renamed' }),
      item('PROJECT#p1', 'SERVICE#e#new', { name: 'new' }),
      item('PROJECT#p1', 'IMPEX#t#r', { status: 'succeeded' }),
      item('PROJECT#p2', 'SERVICE#e#z', { name: 'z' }),
    ];
    const diff = restoreDiff(P, restored, live);
    expect(diff.puts.map((i) => i.SK)).toEqual(['SERVICE#e#b', 'SERVICE#e#c']);
    expect(diff.deletes).toEqual([{ PK: 'PROJECT#p1', SK: 'SERVICE#e#new' }]);
    expect(diff.byKind).toEqual({ SERVICE: { put: 2, deleted: 1, unchanged: 1 } });
  });
});
