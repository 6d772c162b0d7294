/** The project as stored: a leaf that access.ts and projects.ts both read (so neither imports the other's types). */
export interface Project {
  id: string;
  identifier: string;
  name: string;
  cost_calc_enabled: boolean;
  /** The account whose plan governs this project's limits (its creating owner). Internal. */
  owner_id: string;
  /** Mirrors its SSO connection's `required` (issue 44), written in the connection's transaction. */
  sso_required?: boolean;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
  /** Quota counters, each changed in the same transaction as what it counts. */
  env_count: number;
  service_count: number;
  project_user_count: number;
  custom_role_count: number;
  /** The sort key of its latest audit entry (shared/audit.ts). Internal. */
  audit_head?: string | null;
}
