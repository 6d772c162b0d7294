import * as z from 'zod';
import { route, ok, created, noContent } from '#http/route';
import { email, uuid } from '#http/schemas';
import { ACCESS_COOKIE, signedIn } from '#http/cookies';
import { ENV_ROLES } from '#auth/permissions';
import { optionalCaller, presentedToken } from '#auth/authenticate';
import {
  createInvitation,
  listInvitations,
  resendInvitation,
  revokeInvitation,
  toInviteOut,
  acceptInvitationById,
  acceptInvitationByToken,
} from '#domain/tenancy';
import { lazySchema } from '#shared/lazy-schema';

const ts = lazySchema(() => z.string());
const inviteOut = lazySchema(() =>
  z.object({
    id: z.uuid(),
    project_id: z.uuid(),
    invited_email: z.string(),
    invited_first_name: z.string().nullable(),
    invited_last_name: z.string().nullable(),
    role: z.enum(ENV_ROLES),
    invited_by_user_id: z.uuid(),
    environment_id: z.uuid().nullable(),
    group_id: z.uuid().nullable(),
    subgroup_id: z.uuid().nullable(),
    accepted: z.boolean(),
    created_at: ts(),
    accepted_at: ts().nullable(),
    expires_at: ts(),
  }),
);
/** Accept by token: the accepted invitation, plus the new session's tokens when one was issued (`token` repeats the access token). */
const acceptedOut = lazySchema(() =>
  inviteOut().extend({
    access_token: z.string().optional(),
    refresh_token: z.string().optional(),
    token_type: z.literal('bearer').optional(),
    token: z.string().optional(),
  }),
);

const personName = lazySchema(() => z.string().trim().max(100).nullish());
const createBody = lazySchema(() =>
  z
    .object({
      project_id: uuid(),
      invited_email: email(),
      first_name: personName(),
      last_name: personName(),
      role: z.enum(ENV_ROLES).nullish(),
      environment_id: uuid().nullish(),
      group_id: uuid().nullish(),
      subgroup_id: uuid().nullish(),
    })
    // Groups and subgroups live inside an environment: naming one without the environment is a malformed request.
    .superRefine((b, ctx) => {
      for (const field of ['group_id', 'subgroup_id'] as const) {
        if (b[field] && !b.environment_id)
          ctx.addIssue({ code: 'custom', path: [field], message: `${field} requires environment_id` });
      }
    }),
);
const inviteParams = lazySchema(() => z.object({ invite_id: uuid() }));

export const invitesRoutes = [
  route({
    method: 'POST',
    path: '/invites',
    auth: 'user',
    summary: 'Invite an address into a project (owner); the link is mailed to it',
    body: createBody,
    responses: () => ({ 201: inviteOut() }),
    refusals: [400, 403, 404, 429],
    handler: async ({ body }, ctx) => created(toInviteOut(await createInvitation(ctx, body))),
  }),
  route({
    method: 'GET',
    path: '/invites',
    auth: 'user',
    summary: "A project's invitations, newest first (owner)",
    query: () => z.object({ project_id: uuid() }),
    responses: () => ({ 200: z.array(inviteOut()) }),
    refusals: [403, 404],
    handler: async ({ query }, ctx) => ok((await listInvitations(ctx, query)).map(toInviteOut)),
  }),
  route({
    method: 'POST',
    path: '/invites/{invite_id}/resend',
    auth: 'user',
    summary: 'Mail a new link, valid 24 hours; the previous link stops working (owner)',
    params: inviteParams,
    responses: () => ({ 200: inviteOut() }),
    refusals: [400, 403, 404, 429],
    handler: async ({ params }, ctx) => ok(toInviteOut(await resendInvitation(ctx, { id: params.invite_id }))),
  }),
  route({
    method: 'DELETE',
    path: '/invites/{invite_id}',
    auth: 'user',
    summary: 'Revoke an invitation: it expires now, the record is kept (owner)',
    params: inviteParams,
    responses: () => ({ 204: null }),
    refusals: [400, 403, 404],
    handler: async ({ params }, ctx) => {
      await revokeInvitation(ctx, { id: params.invite_id });
      return noContent();
    },
  }),
  route({
    method: 'POST',
    path: '/invites/{invite_id}/accept',
    auth: 'user',
    summary: 'Accept an invitation addressed to the signed-in account',
    params: inviteParams,
    responses: () => ({ 204: null }),
    refusals: [400, 404],
    handler: async ({ params }, ctx) => {
      await acceptInvitationById(ctx, { id: params.invite_id });
      return noContent();
    },
  }),
  route({
    method: 'POST',
    path: '/invites/accept/by-token',
    auth: 'public',
    summary: 'Accept an invitation with the token from its mailed link',
    body: () =>
      z.object({
        token: z.string().trim().min(1).max(512),
        password: z.string().max(1024).nullish(),
        name: z.string().trim().max(200).nullish(),
      }),
    responses: () => ({ 200: acceptedOut() }),
    refusals: [400, 404, 409],
    handler: async ({ body, headers, cookies, sourceIp, userAgent }, ctx) => {
      // Public route: an optional token is resolved here (HTTP/auth work) and handed to the domain as ctx.actor (null when absent or unusable).
      ctx.actor = await optionalCaller(presentedToken(headers.authorization, cookies[ACCESS_COOKIE]), ctx, {
        refusedIsAnonymous: true,
      });
      const { invite, session } = await acceptInvitationByToken(ctx, { ...body, client: { sourceIp, userAgent } });
      // `token` repeats the access token for clients of the invitation page.
      return session ? signedIn(session, ctx.config, { ...invite, token: session.access_token }) : ok(invite);
    },
  }),
];
