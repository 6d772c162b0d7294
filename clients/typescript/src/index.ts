export { InfracatClient, createInfracatClient, multipart, EXPIRED_TOKEN, SECOND_FACTOR_REQUIRED } from './client.js';
export type { ClientOptions, LoginInput, Tokens, UploadFile } from './client.js';
export { ApiError, RequestTimeoutError, detailOf, fieldOf, parseRetryAfter, type Issue } from './errors.js';
export { offsetPages, eachOffsetPage, cursorPages, cursorPage, collect } from './paging.js';
export { followJob, type JobProgress } from './jobs.js';
export { isDowngrade, isFreePlan, PLAN_LIMITS, type PlanTerms } from './plans.js';
export type { paths, components, operations } from './schema.js';
