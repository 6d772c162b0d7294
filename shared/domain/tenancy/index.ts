/** The tenancy context's public face: other contexts, routes and workers import only this. */
export * from './access';
export * from './cost-estimate';
export * from './custom-roles';
export * from './env-roles';
export * from './env-scope';
export * from './environments';
export * from './groups';
export * from './inventory';
export * from './invitation-acceptance';
export * from './invitation-mail';
export * from './invitations';
export * from './members';
export * from './project-users';
export * from './projects';
export * from './project-types';
