/** The sso context's public face: a project's OpenID Connect connection, its domains, and sign-in through it. */
export { ssoConnectionBody, putConnection, getConnection, deleteConnection, verifyDomain } from './connections.ts';
export { startSsoSignIn, startSsoLink, SSO_BINDING_COOKIE } from './sign-in.ts';
export { finishSsoSignIn, exchangeLoginCode } from './sign-in-finish.ts';
export { listLinkedIdentities, unlinkIdentity } from './identities.ts';
