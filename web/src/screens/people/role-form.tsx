import { useState } from 'preact/hooks';
import type { CustomRole, Permission } from '../../api';
import { Alert, Field, useSubmit } from '../../ui';

/** A custom role's form (create and edit) and the permission catalogue it offers. */

/**
 * The permission catalogue with a sentence each. A `Record` over the API's enum: when the API adds a
 * permission, the compiler asks for its sentence here.
 */
export const PERMISSIONS: Record<Permission, string> = {
  'project.manage': 'Manage the project: custom roles and their holders',
  'env.manage': 'Create, rename and delete environments',
  'env.roles.manage': 'Give and take environment roles',
  'services.view': 'See services',
  'services.manage': 'Create, change and delete services',
  'floors.view': 'See servers',
  'floors.manage': 'Create, change and delete servers',
  'networks.view': 'See networks',
  'networks.manage': 'Create, change and delete networks and attachments',
  'groups.view': 'See groups and subgroups',
  'groups.manage': 'Create, change and delete groups and subgroups',
  'connections.view': 'See connections and links',
  'connections.manage': 'Create and delete connections and links; cloud discovery',
  'project_users.view': 'See project users',
  'project_users.manage': 'Add, change and delete project users',
  'webhooks.manage': 'Register and manage webhooks',
  'audit.read': 'Read the audit log',
};
const CATALOGUE = Object.entries(PERMISSIONS) as [Permission, string][];

type RoleBody = { name: string; description: string | null; permissions: Permission[] };

/** Name, description and permissions; the API's 422 and 400 next to the field they are about. */
export function RoleForm(props: {
  idPrefix: string;
  role?: CustomRole;
  button: string;
  onSave: (body: RoleBody) => Promise<void>;
  onCancel?: () => void;
}) {
  const [name, setName] = useState(props.role?.name ?? '');
  const [description, setDescription] = useState(props.role?.description ?? '');
  const [permissions, setPermissions] = useState<Permission[]>(props.role?.permissions ?? []);
  const { submit, busy, error, fields } = useSubmit(async () => {
    await props.onSave({ name: name.trim(), description: description.trim() || null, permissions });
    if (!props.role) {
      setName('');
      setDescription('');
      setPermissions([]);
    }
  }, ['name', 'description', 'permissions']);
  const legendId = `${props.idPrefix}-permissions`;
  return (
    <form onSubmit={submit} class="role-form">
      <Alert>{error}</Alert>
      <div class="form-grid">
        <Field
          label="Role name"
          name={`${props.idPrefix}-name`}
          required
          maxLength={100}
          value={name}
          onValue={setName}
          error={fields.name}
        />
        <Field
          label="Description"
          name={`${props.idPrefix}-description`}
          value={description}
          onValue={setDescription}
          error={fields.description}
          hint="Optional."
        />
      </div>
      <fieldset
        class={fields.permissions ? 'permissions invalid' : 'permissions'}
        aria-describedby={fields.permissions ? `${legendId}-error` : undefined}
      >
        <legend id={legendId}>Permissions</legend>
        {CATALOGUE.map(([key, label]) => (
          <label key={key} class="check">
            <input
              type="checkbox"
              name={`${props.idPrefix}-perm`}
              value={key}
              checked={permissions.includes(key)}
              onChange={(e) =>
                setPermissions(e.currentTarget.checked ? [...permissions, key] : permissions.filter((p) => p !== key))
              }
            />
            <span>
              {label} <code>{key}</code>
            </span>
          </label>
        ))}
        {fields.permissions && (
          <p class="error" id={`${legendId}-error`}>
            {fields.permissions === 'Required' ? 'Choose at least one permission.' : fields.permissions}
          </p>
        )}
      </fieldset>
      <div class="row-actions">
        <button type="submit" class="primary" disabled={busy}>
          {props.button}
        </button>
        {props.onCancel && (
          <button type="button" onClick={props.onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}
