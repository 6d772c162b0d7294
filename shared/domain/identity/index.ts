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
} from './accounts';
export { requireRecentProof, type IdentityProof } from './reauth';
export {
  toAdminUserOut,
  listAccounts,
  getAccountForStaff,
  updateAccountAsStaff,
  createAccountAsStaff,
  listSecurityLogForStaff,
} from './admin-users';
export { LOCKOUT } from './lockout';
export { login, type SignInGate } from './login';
export { RESET_LINK_VALID_MINUTES, requestPasswordReset, confirmPasswordReset } from './password-reset';
export { consume, enforceRateLimit, perAddressPerMinute } from './rate-limit';
export { RECOVERY_CODES_PER_SET, recoveryCodeStatus } from './recovery-codes';
export { register, prepareAccount } from './registration';
export { hasSecondFactor } from './second-factor';
export {
  startSession,
  sessionStart,
  refreshSession,
  logout,
  revokeSession,
  type ClientMeta,
  type TokenPair,
} from './sessions';
export { listSessions, revokeOtherSessions } from './account-sessions';
export { ensureStaff } from './staff';
export {
  MAX_AUTHENTICATORS,
  toDeviceOut,
  provisionAuthenticator,
  enrolAuthenticator,
  listAuthenticators,
} from './totp-devices';
export { removeAuthenticator, regenerateRecoveryCodes, deleteLegacyTotp } from './account-security';
export { confirmEmailChange } from './email-change';
export { updateProfile } from './profile';
export {
  securityLogEntryOut,
  securityLogItem,
  securityLogStep,
  recordSecurityEvent,
  listOwnSecurityLog,
  type RefusalReason,
} from './security-log';
