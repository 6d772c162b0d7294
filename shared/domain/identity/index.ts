/** The identity context's public face: other contexts, routes and workers import only this. */
export {
  toAccountOut,
  canCreateProjects,
  accountCreationSteps,
  getAccount,
  findAccountByEmail,
  currentAccount,
  buildAccount,
  recordLogin,
  type Account,
  type AccountType,
} from './accounts.ts';
export { requireRecentProof, type IdentityProof } from './reauth.ts';
export {
  toAdminUserOut,
  listAccounts,
  getAccountForStaff,
  updateAccountAsStaff,
  createAccountAsStaff,
  listSecurityLogForStaff,
} from './admin-users.ts';
export { LOCKOUT } from './lockout.ts';
export { login, type SignInGate } from './login.ts';
export { RESET_LINK_VALID_MINUTES, requestPasswordReset, confirmPasswordReset } from './password-reset.ts';
export { consume, enforceRateLimit, perAddressPerMinute } from './rate-limit.ts';
export { RECOVERY_CODES_PER_SET, recoveryCodeStatus } from './recovery-codes.ts';
export { register, prepareAccount } from './registration.ts';
export { hasSecondFactor } from './second-factor.ts';
export {
  startSession,
  sessionStart,
  refreshSession,
  logout,
  revokeSession,
  type ClientMeta,
  type TokenPair,
} from './sessions.ts';
export { listSessions, revokeOtherSessions } from './account-sessions.ts';
export { ensureStaff } from './staff.ts';
export {
  MAX_AUTHENTICATORS,
  toDeviceOut,
  provisionAuthenticator,
  enrolAuthenticator,
  listAuthenticators,
} from './totp-devices.ts';
export { removeAuthenticator, regenerateRecoveryCodes, deleteLegacyTotp } from './account-security.ts';
export { confirmEmailChange } from './email-change.ts';
export { updateProfile } from './profile.ts';
export {
  securityLogEntryOut,
  securityLogItem,
  securityLogStep,
  recordSecurityEvent,
  listOwnSecurityLog,
  type RefusalReason,
} from './security-log.ts';
