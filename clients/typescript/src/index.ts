export { InfracatClient, createInfracatClient, multipart, EXPIRED_TOKEN, SECOND_FACTOR_REQUIRED } from './client.ts';
export type { ClientOptions, LoginInput, Tokens, UploadFile } from './client.ts';
export { ApiError, RequestTimeoutError, detailOf, fieldOf, parseRetryAfter, type Issue } from './errors.ts';
export { offsetPages, eachOffsetPage, cursorPages, cursorPage, collect } from './paging.ts';
export { followJob, type JobProgress } from './jobs.ts';
export { isDowngrade, isFreePlan, PLAN_LIMITS, type PlanTerms } from './plans.ts';
export type { paths, components, operations } from './schema.d.ts';
