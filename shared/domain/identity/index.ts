/** The identity context's public face: other contexts, routes and workers import only this. */
export * from './accounts';
export * from './admin-users';
export * from './lockout';
export * from './login';
export * from './password-reset';
export * from './rate-limit';
export * from './recovery-codes';
export * from './registration';
export * from './second-factor';
export * from './sessions';
export * from './staff';
export * from './totp-devices';
export * from './account-security';
export * from './email-change';
export * from './profile';
export * from './reauth';
export * from './security-log';
