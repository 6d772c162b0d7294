import { describe, expect, it } from 'vitest';
import { AUDIT_FORBIDDEN, readable, readScope } from '#domain/audit';
import type { AuditItem } from '#shared/audit';
import { accessOf, customRole } from '../helpers/access.ts';

/** An entry of `entity_type` in environment `env` (null: project-level). */
const entry = (entity_type: string, env: string | null) => ({ entity_type, environment_id: env }) as AuditItem;

const auditor = customRole('auditor', ['audit.read']);
const owner = accessOf({ owner: true });
const projectAuditor = accessOf({ grants: ['auditor#*'], roles: [auditor] });
const envAAuditor = accessOf({ grants: ['auditor#envA'], roles: [auditor] });
const hookAuditor = accessOf({
  grants: ['auditor#*', 'hooks#envA'],
  roles: [auditor, customRole('hooks', ['webhooks.manage'])],
});

/** What a reader may see of one entry, scope and entry permission together. */
const sees = (access: ReturnType<typeof accessOf>, e: AuditItem) => readable(access, readScope(access), e);

describe("the audit log's read scope (audit/log): which entries a caller may read", () => {
  it('a member without audit.read (and a deleted auditor role) is refused with 403', () => {
    for (const access of [
      accessOf(),
      accessOf({ envRoles: { envA: 'administrator' } }),
      accessOf({ grants: ['auditor#*'], roles: [customRole('auditor', ['audit.read'], true)] }),
    ]) {
      expect(() => readScope(access)).toThrow(expect.objectContaining({ kind: 'forbidden', detail: AUDIT_FORBIDDEN }));
    }
  });

  it('owners and project-wide auditors read the whole project; an environment auditor only their environments', () => {
    expect(readScope(owner)).toBe('project');
    expect(readScope(projectAuditor)).toBe('project');
    expect(readScope(envAAuditor)).toEqual(new Set(['envA']));
    expect(
      readScope(
        accessOf({
          grants: ['auditor#envA', 'auditor#envB', 'other#envC'],
          roles: [auditor, customRole('other', ['services.view'])],
        }),
      ),
    ).toEqual(new Set(['envA', 'envB']));
  });

  it.each<[string, ReturnType<typeof accessOf>, AuditItem, boolean]>([
    ['an owner reads an owner-only entry (custom role)', owner, entry('custom_role', null), true],
    ['an owner reads an entry of an unknown kind', owner, entry('something_new', 'envA'), true],
    ['a project auditor reads a service entry of any environment', projectAuditor, entry('service', 'envB'), true],
    [
      'a project auditor reads the project and environment entries every member sees',
      projectAuditor,
      entry('environment', 'envA'),
      true,
    ],
    ['a project auditor does not read an owner-only entry', projectAuditor, entry('custom_role', null), false],
    [
      'a project auditor does not read an entry of an unknown kind (owners only)',
      projectAuditor,
      entry('something_new', 'envA'),
      false,
    ],
    [
      'a project auditor does not read webhook entries without webhooks.manage',
      projectAuditor,
      entry('webhook', 'envA'),
      false,
    ],
    ["webhooks.manage in env A shows env A's webhook entries", hookAuditor, entry('webhook', 'envA'), true],
    ["webhooks.manage in env A does not show env B's", hookAuditor, entry('webhook', 'envB'), false],
    ["an env A auditor reads env A's service entries", envAAuditor, entry('service', 'envA'), true],
    ["an env A auditor does not read env B's", envAAuditor, entry('service', 'envB'), false],
    ['an env A auditor does not read project-level entries', envAAuditor, entry('project', null), false],
  ])('%s', (_name, access, e, visible) => {
    expect(sees(access, e)).toBe(visible);
  });
});
