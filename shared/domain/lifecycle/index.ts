/** The lifecycle context (above catalog): plan limits across an account's projects, downgrade with its grace window, archive and restore. */
export * from './selection';
export * from './archive';
export * from './archived-lists';

export * from './usage';
export * from './limits-status';
export * from './downgrade';
export * from './downgrade-window';
export * from './deadlines';
export * from './project-restore';
