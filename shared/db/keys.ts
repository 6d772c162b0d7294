import { foldName } from '#shared/text';
import { listingKeys } from './listing-keys.ts';

/** Key builders: the only place that knows how items are addressed (see docs/data-model.md). */

/** The sort-key prefix of an environment's import lock. */
const IMPORT_LOCK_PREFIX = 'IMPORTLOCK#';

export const keys = {
  account: (userId: string) => ({ PK: `USER#${userId}`, SK: 'ACCOUNT' }),
  /** Uniqueness sentinel and login lookup: lower-cased e-mail → user id. */
  email: (email: string) => ({ PK: `EMAIL#${email.toLowerCase()}`, SK: 'EMAIL' }),
  session: (userId: string, sessionId: string) => ({ PK: `USER#${userId}`, SK: `SESSION#${sessionId}` }),
  sessionPrefix: 'SESSION#',
  /** Sign-in security: authenticators and recovery codes live with the account. */
  totpDevice: (userId: string, deviceId: string) => ({ PK: `USER#${userId}`, SK: `TOTP#${deviceId}` }),
  totpDevicePrefix: 'TOTP#',
  recoveryCodes: (userId: string) => ({ PK: `USER#${userId}`, SK: 'RECOVERY' }),
  /** Failed sign-ins per address (known or not, so an unknown address behaves exactly like an account). */
  loginFailures: (email: string) => ({ PK: `LOGINFAIL#${email.toLowerCase()}`, SK: 'LOGINFAIL' }),
  /** A password-reset token, addressed by the SHA-256 of the token (the token itself is never stored). */
  passwordReset: (tokenHash: string) => ({ PK: `RESET#${tokenHash}`, SK: 'RESET' }),
  /** A pending e-mail change, addressed by the SHA-256 of the token mailed to the new address (the token itself is never stored). */
  emailChange: (tokenHash: string) => ({ PK: `EMAILCHANGE#${tokenHash}`, SK: 'EMAILCHANGE' }),
  /** The account's security log: its own partition, time-ordered (newest first is one Query); TTL SECURITY_LOG_RETENTION_DAYS. */
  securityLog: (userId: string, at: string, entryId: string) => ({
    PK: `USER#${userId}#SECLOG`,
    SK: `${at}#${entryId}`,
  }),
  securityLogPK: (userId: string) => `USER#${userId}#SECLOG`,
  /** An `Idempotency-Key`'s record (shared/http/idempotency.ts): its own partition, TTL 24 hours. */
  idempotencyRecord: (scopeHash: string) => ({ PK: scopeHash, SK: 'IDEMPOTENCY' }),
  /** A rate-limit counter: one item per bucket (e.g. route + source address). */
  rateLimit: (bucket: string) => ({ PK: `RATE#${bucket}`, SK: 'RATE' }),
  subscription: (userId: string, subscriptionId: string) => ({ PK: `USER#${userId}`, SK: `SUB#${subscriptionId}` }),
  subscriptionPrefix: 'SUB#',
  /** The one pending subscription per account and paid plan: choosing the plan again reuses it. */
  pendingSubscription: (userId: string, planId: string) => ({ PK: `USER#${userId}`, SK: `PENDINGSUB#${planId}` }),
  /** The account's customer at the payment provider (the billing portal opens on it). */
  billingCustomer: (userId: string) => ({ PK: `USER#${userId}`, SK: 'BILLING' }),
  /** A background job of the account (checkout): its state and result, read by the job's owner only. */
  accountJob: (userId: string, jobId: string) => ({ PK: `USER#${userId}`, SK: `JOB#${jobId}` }),
  invoice: (userId: string, invoiceId: string) => ({ PK: `USER#${userId}`, SK: `INVOICE#${invoiceId}` }),
  invoicePrefix: 'INVOICE#',
  /** The deployment's last invoice number: advanced in the transaction that issues the invoice (unique, no gaps). */
  invoiceCounter: { PK: 'COUNTER#invoice', SK: 'COUNTER' },
  /** A payment-provider event already applied (recorded in the transaction of the change it caused). */
  paymentEvent: (provider: string, eventId: string) => ({ PK: `PAYEVENT#${provider}#${eventId}`, SK: 'PAYEVENT' }),
  /** A confirmed downgrade's grace window: until when the account may archive before the limits are enforced for it. */
  downgradeWindow: (userId: string) => ({ PK: `USER#${userId}`, SK: 'DOWNGRADE' }),
  /** Due work (reminders, enforcement) in one time-ordered partition: the sweep reads what is due with one Query. */
  deadline: (dueAt: string, userId: string, kind: string) => ({ PK: 'DEADLINES', SK: `${dueAt}#${userId}#${kind}` }),
  deadlinesPK: 'DEADLINES',
  /** A domain event written in the transaction of the change it describes, time-ordered in one partition; moved to the events queue by the table stream (the local runtime queries it). TTL 7 days. */
  outbox: (at: string, eventId: string) => ({ PK: 'OUTBOX', SK: `${at}#${eventId}` }),
  outboxPK: 'OUTBOX',
  /**
   * An audit entry: time-ordered in its project's own audit partition (newest first is one
   * Query), with its entity's and its actor's index entries (GSI2, GSI3) scoped to the project too.
   */
  auditEntry: (projectId: string, at: string, entryId: string) => ({
    PK: `PROJECT#${projectId}#AUDIT`,
    SK: `${at}#${entryId}`,
  }),
  auditPK: (projectId: string) => `PROJECT#${projectId}#AUDIT`,
  auditByEntity: (projectId: string, entityId: string, at: string, entryId: string) => ({
    GSI2PK: `AUDIT#${projectId}#ENTITY#${entityId}`,
    GSI2SK: `${at}#${entryId}`,
  }),
  auditEntityPK: (projectId: string, entityId: string) => `AUDIT#${projectId}#ENTITY#${entityId}`,
  auditByActor: (projectId: string, actorId: string, at: string, entryId: string) => ({
    GSI3PK: `AUDIT#${projectId}#ACTOR#${actorId}`,
    GSI3SK: `${at}#${entryId}`,
  }),
  auditActorPK: (projectId: string, actorId: string) => `AUDIT#${projectId}#ACTOR#${actorId}`,
  /** An account-level audit entry (API keys, plan changes): the account's own time-ordered audit partition; its index entries are scoped to `ACCOUNT#<id>`. */
  accountAuditEntry: (userId: string, at: string, entryId: string) => ({
    PK: `USER#${userId}#AUDIT`,
    SK: `${at}#${entryId}`,
  }),
  accountAuditPK: (userId: string) => `USER#${userId}#AUDIT`,
  /** A webhook of a project (the project's webhooks are one Query). */
  webhook: (projectId: string, webhookId: string) => ({ PK: `PROJECT#${projectId}`, SK: `WEBHOOK#${webhookId}` }),
  webhookPrefix: 'WEBHOOK#',
  /** A project's single sign-on connection: one per project. */
  ssoConnection: (projectId: string) => ({ PK: `PROJECT#${projectId}`, SK: 'SSO' }),
  /** Which project claims an e-mail domain for single sign-on (one project per domain across the table); written with the connection. */
  ssoDomain: (domain: string) => ({ PK: `SSODOMAIN#${domain.toLowerCase()}`, SK: 'SSODOMAIN' }),
  /** A sign-in's state (addressed by the SHA-256 of the state value), single use, TTL 10 minutes. */
  ssoState: (stateHash: string) => ({ PK: `SSOSTATE#${stateHash}`, SK: 'SSOSTATE' }),
  /** A one-time login code handed back by the callback (addressed by its SHA-256), single use, 60 s. */
  ssoLoginCode: (codeHash: string) => ({ PK: `SSOCODE#${codeHash}`, SK: 'SSOCODE' }),
  /** An identity (issuer, sub) linked to an account: at most one account per identity. */
  ssoIdentity: (issuer: string, sub: string) => ({ PK: `SSOIDENTITY#${issuer}#${sub}`, SK: 'SSOIDENTITY' }),
  /** The account-side mirror of a linked identity (the account's identities are one Query). */
  ssoLink: (userId: string, issuer: string, sub: string) => ({ PK: `USER#${userId}`, SK: `SSOLINK#${issuer}#${sub}` }),
  ssoLinkPrefix: 'SSOLINK#',
  /** An owner's password session used on a project that requires SSO (break-glass): audited once per session. TTL 30 days. */
  ssoBreakGlass: (projectId: string, sessionId: string) => ({
    PK: `PROJECT#${projectId}`,
    SK: `SSOBREAKGLASS#${sessionId}`,
  }),
  /** One event's delivery to one webhook (with its attempts), in the webhook's partition, by event id: created once per event however often the queue hands it over. TTL 30 days. */
  webhookDelivery: (webhookId: string, eventId: string) => ({ PK: `WEBHOOK#${webhookId}`, SK: `DELIVERY#${eventId}` }),
  webhookDeliveryPrefix: 'DELIVERY#',
  /** A delivery's next attempt, due at a time, in one time-ordered partition the retry sweep reads with one Query. */
  webhookRetry: (dueAt: string, webhookId: string, eventId: string) => ({
    PK: 'WEBHOOK_RETRIES',
    SK: `${dueAt}#${webhookId}#${eventId}`,
  }),
  webhookRetriesPK: 'WEBHOOK_RETRIES',
  /** An export or import record: time-ordered in its project's partition (history is one Query, newest first). */
  impexRecord: (projectId: string, createdAt: string, recordId: string) => ({
    PK: `PROJECT#${projectId}`,
    SK: `IMPEX#${createdAt}#${recordId}`,
  }),
  impexRecordPrefix: 'IMPEX#',
  /** A single-use WebSocket ticket, by the SHA-256 of its value (the value itself is never stored); TTL 1 minute. */
  wsTicket: (ticketHash: string) => ({ PK: `WSTICKET#${ticketHash}`, SK: 'WSTICKET' }),
  /** A WebSocket connection following a job (the job's subscribers are one Query), and its reverse for disconnect. */
  jobConnection: (jobId: string, connectionId: string) => ({ PK: `JOBCONN#${jobId}`, SK: `CONN#${connectionId}` }),
  jobConnectionsPK: (jobId: string) => `JOBCONN#${jobId}`,
  wsConnection: (connectionId: string) => ({ PK: `WSCONN#${connectionId}`, SK: 'WSCONN' }),
  /**
   * An environment's live change stream (docs/decisions/0985): its gapless counter, its changes by `seq`
   * (TTL 24 h) and the WebSocket connections following it, in one partition of its own.
   */
  liveSeq: (envId: string) => ({ PK: `LIVE#${envId}`, SK: 'SEQ' }),
  liveChange: (envId: string, seq: number) => ({ PK: `LIVE#${envId}`, SK: `CHG#${String(seq).padStart(12, '0')}` }),
  liveChangePrefix: 'CHG#',
  liveConnection: (envId: string, connectionId: string) => ({ PK: `LIVE#${envId}`, SK: `CONN#${connectionId}` }),
  livePK: (envId: string) => `LIVE#${envId}`,
  /** A user's live connections (closed when the user loses access). */
  userLiveConnection: (userId: string, connectionId: string) => ({
    PK: `LIVEUSER#${userId}`,
    SK: `CONN#${connectionId}`,
  }),
  userLivePK: (userId: string) => `LIVEUSER#${userId}`,
  /** A connected cloud account (discovery): in its project's partition, environment-scoped like catalog items. */
  cloudAccount: (projectId: string, envId: string, accountId: string) => ({
    PK: `PROJECT#${projectId}`,
    SK: `CLOUDACCT#${envId}#${accountId}`,
  }),
  cloudAccountPrefix: 'CLOUDACCT#',
  /** A discovery run of a cloud account: time-ordered under its account (its runs are one Query, newest first). */
  discoveryRun: (projectId: string, accountId: string, createdAt: string, runId: string) => ({
    PK: `PROJECT#${projectId}`,
    SK: `DISCRUN#${accountId}#${createdAt}#${runId}`,
  }),
  discoveryRunPrefix: (accountId: string) => `DISCRUN#${accountId}#`,
  plans: 'PLAN',
  plan: (rank: number, planId: string) => ({ PK: 'PLAN', SK: `PLAN#${String(rank).padStart(2, '0')}#${planId}` }),
  /** Staff listing (GSI1): every account under one partition, by e-mail. */
  accountsIndex: (email: string) => ({ GSI1PK: 'ACCOUNTS', GSI1SK: email.toLowerCase() }),

  // Tenancy: everything of a project lives in its partition.
  project: (projectId: string) => ({ PK: `PROJECT#${projectId}`, SK: 'PROJECT' }),
  projectPK: (projectId: string) => `PROJECT#${projectId}`,
  member: (projectId: string, userId: string) => ({ PK: `PROJECT#${projectId}`, SK: `MEMBER#${userId}` }),
  memberPrefix: 'MEMBER#',
  /** The user-side mirror of a membership: lists a user's projects with a strongly consistent Query. */
  membership: (userId: string, projectId: string) => ({ PK: `USER#${userId}`, SK: `MEMBERSHIP#${projectId}` }),
  membershipPrefix: 'MEMBERSHIP#',
  /** Project names are unique per owner (case-insensitive). */
  projectName: (ownerId: string, name: string) => ({ PK: `USER#${ownerId}`, SK: `PROJECTNAME#${foldName(name)}` }),
  projectNamePrefix: 'PROJECTNAME#',
  environment: (projectId: string, envId: string) => ({ PK: `PROJECT#${projectId}`, SK: `ENV#${envId}` }),
  environmentPrefix: 'ENV#',
  envRole: (projectId: string, envId: string, userId: string) => ({
    PK: `PROJECT#${projectId}`,
    SK: `ENVROLE#${envId}#${userId}`,
  }),
  envRolePrefix: (envId: string) => `ENVROLE#${envId}#`,
  /** Every environment's role assignments of a project (a member's removal finds theirs). */
  envRolesPrefix: 'ENVROLE#',
  /** Name sentinel for names unique within a scope (group per environment, subgroup per group, network per environment). */
  uniqueName: (projectId: string, kind: string, scopeId: string, name: string) => ({
    PK: `PROJECT#${projectId}`,
    SK: `NAME#${kind}#${scopeId}#${foldName(name)}`,
  }),
  customRole: (projectId: string, roleId: string) => ({ PK: `PROJECT#${projectId}`, SK: `CROLE#${roleId}` }),
  customRolePrefix: 'CROLE#',
  customRoleAssignment: (projectId: string, roleId: string, userId: string) => ({
    PK: `PROJECT#${projectId}`,
    SK: `CRASSIGN#${roleId}#${userId}`,
  }),
  /** Every custom role's assignments of a project. */
  customRoleAssignmentsPrefix: 'CRASSIGN#',
  /** A custom field definition of a project, by its key; its catalogue's state (count, version) is `customFieldMeta`: one Query of `CF#` reads both. */
  customField: (projectId: string, key: string) => ({ PK: `PROJECT#${projectId}`, SK: `CF#DEF#${key}` }),
  customFieldMeta: (projectId: string) => ({ PK: `PROJECT#${projectId}`, SK: 'CF#META' }),
  customFieldsPrefix: 'CF#',
  /** A custom field deletion job's record (removing its values from every item). */
  customFieldJob: (projectId: string, jobId: string) => ({ PK: `PROJECT#${projectId}`, SK: `CFJOB#${jobId}` }),
  // The catalog: `<KIND>#<environmentId>#<id>` so an environment's items are one Query.
  service: (projectId: string, envId: string, id: string) => ({
    PK: `PROJECT#${projectId}`,
    SK: `SERVICE#${envId}#${id}`,
  }),
  servicePrefix: (envId: string) => `SERVICE#${envId}#`,
  ...listingKeys,
  floor: (projectId: string, envId: string, id: string) => ({ PK: `PROJECT#${projectId}`, SK: `FLOOR#${envId}#${id}` }),
  floorPrefix: (envId: string) => `FLOOR#${envId}#`,
  network: (projectId: string, envId: string, id: string) => ({
    PK: `PROJECT#${projectId}`,
    SK: `NETWORK#${envId}#${id}`,
  }),
  networkPrefix: (envId: string) => `NETWORK#${envId}#`,
  connection: (projectId: string, envId: string, id: string) => ({
    PK: `PROJECT#${projectId}`,
    SK: `CONN#${envId}#${id}`,
  }),
  connectionPrefix: (envId: string) => `CONN#${envId}#`,
  link: (projectId: string, envId: string, id: string) => ({ PK: `PROJECT#${projectId}`, SK: `LINK#${envId}#${id}` }),
  linkPrefix: (envId: string) => `LINK#${envId}#`,
  /**
   * An environment's topology snapshot, a view derived from its items and kept by the table stream
   * (catalog/topology/snapshot): its head (version, buckets) and its buckets of rows, one partition.
   */
  topologyHead: (projectId: string, envId: string) => ({ PK: `TOPOLOGY#${projectId}#${envId}`, SK: 'HEAD' }),
  topologyBucket: (projectId: string, envId: string, n: number) => ({
    PK: `TOPOLOGY#${projectId}#${envId}`,
    SK: `BUCKET#${String(n).padStart(4, '0')}`,
  }),
  /** A chain or hub of connections (created by a batch): its group_kind and member count. */
  connectionChain: (projectId: string, envId: string, chainId: string) => ({
    PK: `PROJECT#${projectId}`,
    SK: `CHAIN#${envId}#${chainId}`,
  }),
  connectionChainPrefix: (envId: string) => `CHAIN#${envId}#`,
  /** The journal of a staged write into an environment (an import's chunk, db/staged-write.ts): `STAGED#<envId>#<owner>#<n>`, there while it is in flight. */
  stagedWrite: (projectId: string, envId: string, owner: string, n: number) => ({
    PK: `PROJECT#${projectId}`,
    SK: `STAGED#${envId}#${owner}#${String(n).padStart(8, '0')}`,
  }),
  stagedWritePrefix: (envId: string) => `STAGED#${envId}#`,
  /** The environment's import lock (a lease, db/lease.ts): one import writes into an environment at a time. */
  importLock: (projectId: string, envId: string) => ({
    PK: `PROJECT#${projectId}`,
    SK: `${IMPORT_LOCK_PREFIX}${envId}`,
  }),
  importLockPrefix: IMPORT_LOCK_PREFIX,
  /** Every environment's staged-write journals of a project. */
  stagedWritesPrefix: 'STAGED#',
  group: (projectId: string, envId: string, id: string) => ({ PK: `PROJECT#${projectId}`, SK: `GROUP#${envId}#${id}` }),
  groupPrefix: (envId: string) => `GROUP#${envId}#`,
  subgroup: (projectId: string, envId: string, id: string) => ({
    PK: `PROJECT#${projectId}`,
    SK: `SUBGROUP#${envId}#${id}`,
  }),
  subgroupPrefix: (envId: string) => `SUBGROUP#${envId}#`,
  projectUser: (projectId: string, id: string) => ({ PK: `PROJECT#${projectId}`, SK: `PUSER#${id}` }),
  projectUserPrefix: 'PUSER#',
  invite: (projectId: string, id: string) => ({ PK: `PROJECT#${projectId}`, SK: `INVITE#${id}` }),
  invitePrefix: 'INVITE#',
  /** An invitation's link: the SHA-256 of its token → the invitation (one GetItem; the token itself is never stored). */
  inviteToken: (tokenHash: string) => ({ PK: `INVITETOKEN#${tokenHash}`, SK: 'INVITETOKEN' }),
  /** Open invitations per invited address (login asks "is one pending?" with one Query); removed on accept and revoke. */
  invitedEmail: (email: string, inviteId: string) => ({
    PK: `INVITEDEMAIL#${email.toLowerCase()}`,
    SK: `INVITE#${inviteId}`,
  }),
  invitedEmailPK: (email: string) => `INVITEDEMAIL#${email.toLowerCase()}`,
  /** A sent mail's claim (the worker's idempotency marker). */
  mailSent: (mailId: string) => ({ PK: `MAIL#${mailId}`, SK: 'SENT' }),
  /** An API key of one of the account's key sets (`api`, `metrics`): its SHA-256 hash, never the value. */
  apiKey: (userId: string, keySet: string, keyId: string) => ({
    PK: `USER#${userId}`,
    SK: `APIKEY#${keySet}#${keyId}`,
  }),
  apiKeyPrefix: (keySet: string) => `APIKEY#${keySet}#`,
  /** A key's value → where the key lives, by the SHA-256 of the value (the exchange's one GetItem); written with the key, never changed. */
  apiKeyHash: (keyHash: string) => ({ PK: `APIKEYHASH#${keyHash}`, SK: 'APIKEYHASH' }),
  /** An archived resource of the owner's: the summary and the `/me/archived/*` lists are one Query under the owner. */
  archived: (ownerId: string, kind: string, id: string) => ({ PK: `USER#${ownerId}`, SK: `ARCHIVED#${kind}#${id}` }),
  /** Every archived marker ('') or one kind's. */
  archivedPrefix: (kind = '') => (kind ? `ARCHIVED#${kind}#` : 'ARCHIVED#'),
  /** Bare id → where the item lives: written with the item, read strongly consistently (a GSI would lag). */
  idLookup: (id: string) => ({ PK: `ID#${id}`, SK: 'ID' }),
  /** A one-time data migration's record: that it ran, and for which version of what it derives (e.g. the name order of listing keys). */
  migration: (name: string) => ({ PK: `MIGRATION#${name}`, SK: 'MIGRATION' }),
};
