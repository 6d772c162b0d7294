/** The sso context's public face: a project's OpenID Connect connection, its domains, and sign-in through it. */
export { ssoConnectionBody, putConnection, getConnection, deleteConnection, verifyDomain } from './connections';
export { startSsoSignIn, startSsoLink, SSO_BINDING_COOKIE } from './sign-in';
export { finishSsoSignIn, exchangeLoginCode } from './sign-in-finish';
export { listLinkedIdentities, unlinkIdentity } from './identities';
