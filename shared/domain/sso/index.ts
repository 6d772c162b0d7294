/** The sso context's public face (issue 44): a project's OpenID Connect connection, its domains, and sign-in through it. */
export { ssoConnectionBody, putConnection, getConnection, deleteConnection, verifyDomain, SSO_CONNECTION_NOT_FOUND, SSO_DOMAIN_CLAIMED, SSO_DOMAIN_NOT_FOUND, txtRecordMissing } from './connections';
export { toConnectionOut, toDomainOut, txtName } from './connection';
export { startSsoSignIn, startSsoLink, finishSsoSignIn, exchangeLoginCode, returnToAllowed, NO_SSO_FOR_DOMAIN, RETURN_TO_REFUSED, INVALID_STATE, INVALID_LOGIN_CODE, SSO_FAILED, EMAIL_NOT_VERIFIED, DOMAIN_NOT_VERIFIED, ACCOUNT_EXISTS, IDENTITY_LINKED_ELSEWHERE, LINK_EMAIL_MISMATCH, SSO_BINDING_COOKIE } from './sign-in';
export { listLinkedIdentities, unlinkIdentity, IDENTITY_NOT_FOUND } from './identities';
