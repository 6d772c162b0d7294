import { createHmac } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { reloadConfig } from '#shared/config';
import { resetClients } from '#shared/clients';
import { resourcesOf } from '../../infra/deployed/template.ts';
import { faultInjector } from '../../shared/faults.ts';
import { setPlan } from '../helpers/plans.ts';
import { refusedUpgrade } from '../helpers/progress.ts';
import { follow } from '../helpers/live.ts';
import { launchChromium, pageProblems } from '../helpers/browser.ts';
import { WebSocket } from 'ws';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, PASSWORD, signUp, uniqueEmail } from '../helpers/http.ts';
import { linkFrom, readOutbox } from '../helpers/outbox.ts';
import { enrolAuthenticator, login, totpCode } from '../helpers/sign-in.ts';
import { projectWithEnv } from '../helpers/tenancy.ts';
import { LOCAL_STRIPE_SECRET_ARN } from '../../infra/deployed/synth.ts';
import {
  DEPLOYED_STAFF,
  DEPLOYED_TEST_ENV,
  startTestDeployed,
  synthesizedStack,
  type TestDeployed,
} from '../helpers/deployed.ts';
import { CloudStub, hetznerServer } from '../../infra/local/cloud-stub.ts';
import { ReceiveMessageCommand, SendMessageCommand, SQSClient, type Message } from '@aws-sdk/client-sqs';
import { OPERATOR_ACCESS_KEY } from '../../infra/deployed/iam.ts';
import { createInfracatClient } from '../../clients/typescript/src/client.ts';
import { startSsoDns, startSsoIdp } from '../../infra/deployed/sso-stand-ins.ts';
import type { DnsStandIn } from '../../infra/local/dns-stand-in.ts';
import type { LocalIdp } from '../../infra/local/idp.ts';
import { connect, randomDomain, ssoFlow } from '../helpers/sso.ts';

/**
 * The deployed shape: the product served from a synthesized template and its asset folders
 * by start:deployed, every function in its own sandboxes with only the template's environment, every
 * AWS call made through the real SDK to a stand-in and authorized against the function's role.
 */
let cdk: Awaited<ReturnType<typeof synthesizedStack>>;
let deployed: TestDeployed;
const api = client(() => deployed.url);
/** The token providers' stub, which discovery reaches through the tester's HETZNER_API_BASE_URL. */
const stub = new CloudStub();
/** Single sign-on's stand-ins, started as start:deployed starts them (the DNS server before the functions, the IdP after). */
let dns: DnsStandIn | undefined;
let idp: LocalIdp;

beforeAll(async () => {
  await stub.start();
  cdk = await synthesizedStack();
  const env: Record<string, string | undefined> = {
    PATH: process.env.PATH,
    ...DEPLOYED_TEST_ENV,
    HETZNER_API_BASE_URL: `${stub.url}/hetzner/v1`,
  };
  dns = await startSsoDns(tmpdir(), env);
  deployed = await startTestDeployed(cdk.dir, { env });
  idp = await startSsoIdp(deployed.url, { port: 0, users: {} });
  // Some tests' setup writes plans straight into the run's table (the paid plan's own flow: the Stripe test).
  reloadConfig({
    TABLE_NAME: deployed.resolver.ref(resourcesOf(deployed.assembly, 'AWS::DynamoDB::Table')[0][0]),
    DYNAMODB_ENDPOINT: deployed.dynamoEndpoint,
  });
  resetClients();
}, 240_000);
afterAll(async () => {
  await Promise.allSettled([idp?.stop(), dns?.stop()]);
  await deployed?.stop();
  await cdk?.remove();
  await stub.stop();
}, 60_000);

/** A multipart POST as a browser's FormData makes it (the import and export forms). */
async function form(path: string, token: string, fields: Record<string, string>) {
  const body = new FormData();
  for (const [k, v] of Object.entries(fields)) body.set(k, v);
  const res = await fetch(`${deployed.url}${path}`, {
    method: 'POST',
    body,
    headers: { authorization: `Bearer ${token}` },
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, text };
}

/** An export or import job's record once it has finished (the jobs worker takes it from its queue). */
async function finished(token: string, jobId: string) {
  for (let i = 0; i < 120; i++) {
    const res = await api.get(`/impex/status/${jobId}?token=${encodeURIComponent(token)}`);
    if (res.body.status === 'succeeded' || res.body.status === 'failed') return res.body;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error('job never finished');
}

/** The mails delivered (queued, sent by the mail worker through SES) to `to`, once the queues are quiet. */
async function mailsTo(to: string) {
  await deployed.settled();
  return readOutbox(deployed.dataDir, { to });
}

describe('start:deployed', () => {
  it('serves the dashboard and the API on one origin, as the distribution does', async () => {
    const page = await fetch(`${deployed.url}/projects/anything`, { headers: { accept: 'text/html' } });
    // /projects* goes to the API (the SPA's own addresses are elsewhere): the API answers, not the bucket.
    expect(page.headers.get('apigw-requestid')).toBeTruthy();
    const home = await fetch(`${deployed.url}/`);
    expect(home.status).toBe(200);
    expect(home.headers.get('content-type')).toContain('text/html');
    expect(await home.text()).toMatch(/<script[^>]+src="\/assets\//);
    expect(home.headers.get('content-security-policy')).toContain("default-src 'self'");
    const plans = await api.get('/plans');
    expect(plans.status).toBe(200);
    expect(plans.body.length).toBeGreaterThan(0); // seeded by the template's Trigger, through the seeding function
  });

  it('has the first staff account the seeding function made from its Secrets Manager secret', async () => {
    const staff = await login(api, DEPLOYED_STAFF.email, DEPLOYED_STAFF.password);
    expect(staff.status, staff.text).toBe(200);
    expect((await api.get('/admin/users', { token: staff.body.access_token })).status).toBe(200);
  });

  it('signs up, enrols an authenticator (KMS Encrypt) and signs in with it (KMS Decrypt); tokens are signed with the Secrets Manager key', async () => {
    const user = await signUp(api);
    // A code is taken once: enrolled with the previous step's (within its one step of tolerance), it signs
    // in with the current step's (the stack runs on the real clock), not across a step's end.
    const left = 30_000 - (Date.now() % 30_000);
    if (left < 10_000) await new Promise((r) => setTimeout(r, left + 100));
    const secret = await enrolAuthenticator(api, user.token, new Date(Date.now() - 30_000));
    expect((await login(api, user.email, PASSWORD)).status).toBe(401);
    const res = await login(api, user.email, PASSWORD, await totpCode(secret, new Date()));
    expect(res.status, res.text).toBe(200);
    expect((await api.get('/auth/me', { token: res.body.access_token })).body.email).toBe(user.email);
  }, 75_000);

  it('keeps a project with services, a connection and the blast radius', async () => {
    const owner = await signUp(api);
    const { projectId, envId } = await projectWithEnv(api, owner.token);
    const scope = { project_id: projectId, environment_id: envId };
    const svc = async (name: string) =>
      (await api.post('/services', { name, ...scope }, { token: owner.token })).body.id as string;
    const [a, b] = [await svc('web'), await svc('db')];
    const conn = await api.post(
      '/service-connections',
      { ...scope, a_type: 'service', a_id: a, b_type: 'service', b_id: b, direction: 'a_to_b' },
      { token: owner.token },
    );
    expect(conn.status, conn.text).toBe(201);
    const radius = await api.get(`/services/${b}/blast-radius`, { token: owner.token });
    expect(radius.status, radius.text).toBe(200);
    expect(JSON.stringify(radius.body)).toContain(a);
  });

  it('mails an invitation through SQS, the mail worker and SES, and the invitee accepts it', async () => {
    const owner = await signUp(api);
    const { projectId } = await projectWithEnv(api, owner.token);
    const email = uniqueEmail('invitee');
    const invite = await api.post('/invites', { project_id: projectId, invited_email: email }, { token: owner.token });
    expect(invite.status, invite.text).toBe(201);
    const [mail] = await mailsTo(email);
    const token = linkFrom(mail, '/invitations/accept').searchParams.get('token')!;
    const accepted = await api.post('/invites/accept/by-token', { token, password: PASSWORD, name: 'Invitee' });
    expect(accepted.status, accepted.text).toBe(200);
    expect(
      (await api.get('/projects', { token: accepted.body.access_token })).body.map((p: { id: string }) => p.id),
    ).toContain(projectId);
  });

  it('exports through the jobs queue to S3 and downloads it through its presigned URL; imports a document put to an upload URL', async () => {
    const owner = await signUp(api);
    const { projectId, envId } = await projectWithEnv(api, owner.token);
    const target = { project_id: projectId, environment_id: envId };
    await api.post('/services', { name: 'exported', ...target }, { token: owner.token });
    const started = await form('/impex/export', owner.token, target);
    expect(started.status, started.text).toBe(202);
    const record = await finished(owner.token, started.body.job_id);
    expect(record.status, JSON.stringify(record)).toBe('succeeded');
    const url = new URL(record.download_url);
    const link = await fetch(`${deployed.url}${url.pathname}${url.search}`, { redirect: 'manual' });
    expect(link.status).toBe(302);
    const download = await fetch(link.headers.get('location')!);
    expect(download.status).toBe(200);
    expect(await download.text()).toContain('name: exported');

    const text =
      'apiVersion: infracatalog/v1\nkind: Environment\nspec:\n  services:\n    - name: imported\n      port: 9000\n';
    const upload = await api.post(
      '/impex/upload-url',
      { ...target, size: Buffer.byteLength(text) },
      { token: owner.token },
    );
    expect(upload.status, upload.text).toBe(201);
    expect((await fetch(upload.body.url, { method: 'PUT', body: text, headers: upload.body.headers })).status).toBe(
      200,
    );
    const imported = await form('/impex/import', owner.token, { ...target, upload_id: upload.body.upload_id });
    expect(imported.status, imported.text).toBe(202);
    expect((await finished(owner.token, imported.body.job_id)).status).toBe('succeeded');
    const names = (
      await api.get(`/services?project_id=${projectId}&environment_id=${envId}`, { token: owner.token })
    ).body.map((s: { name: string }) => s.name);
    expect(names).toContain('imported');
  });

  it("buys Team on Stripe's checkout page on the site's own origin (Chromium), the signed checkout.session.completed through the webhook route; the paid plan's webhook delivers a change, signed; the portal cancels", async () => {
    const stripe = deployed.stripe!;
    const keys = JSON.parse(deployed.secrets.get(LOCAL_STRIPE_SECRET_ARN)!) as { secret_key: string };
    const got: { headers: IncomingHttpHeaders; body: string }[] = [];
    const receiver: Server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        got.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const browser = await launchChromium();
    try {
      const owner = await signUp(api);
      const { projectId, envId } = await projectWithEnv(api, owner.token);
      const webhookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      // The Free plan has no webhooks.
      expect(
        (
          await api.post(
            `/projects/${projectId}/webhooks`,
            { url: webhookUrl, events: ['service.created'] },
            { token: owner.token },
          )
        ).status,
      ).toBe(403);

      const team = ((await api.get('/plans')).body as { id: string; name: string; interval: string }[]).find(
        (p) => p.name === 'Team' && p.interval === 'monthly',
      )!;
      const chosen = await api.post('/subscriptions/choose', { plan_id: team.id }, { token: owner.token });
      expect(chosen.status, chosen.text).toBe(200);
      await deployed.settled();
      const ready = await api.get(`/subscriptions/checkout-url/${chosen.body.job_id}`, { token: owner.token });
      expect(ready.status, ready.text).toBe(200);
      expect(ready.body.url).toMatch(new RegExp(`^${deployed.url}/_stripe/checkout/cs_test_`));

      const page = await browser.newPage();
      const problems = await pageProblems(page);
      await page.goto(ready.body.url);
      await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Team');
      expect(problems).toEqual([]);
      await Promise.all([
        page.waitForURL((u) => u.pathname === '/billing/success', { waitUntil: 'commit' }),
        page.getByRole('button', { name: /^Pay 79\.00 USD/ }).click(),
      ]);
      const [paid] = stripe.events.filter(
        (e) => e.event.type === 'checkout.session.completed' && e.event.data.object.metadata.account_id === owner.id,
      );
      expect(paid.status).toBe(200);
      expect(
        stripe.requests.find((r) => r.path === '/v1/checkout/sessions' && r.body.metadata?.account_id === owner.id)
          ?.authorization,
      ).toBe(`Bearer ${keys.secret_key}`);
      expect((await api.get('/me/subscription', { token: owner.token })).body.plan.name).toBe('Team');

      const hook = await api.post(
        `/projects/${projectId}/webhooks`,
        { url: webhookUrl, events: ['service.created'] },
        { token: owner.token },
      );
      expect(hook.status, hook.text).toBe(201);
      const service = await api.post(
        '/services',
        { name: 'checkout', project_id: projectId, environment_id: envId },
        { token: owner.token },
      );
      await expect.poll(() => got.length, { timeout: 30_000 }).toBe(1);
      const [delivery] = got;
      expect(JSON.parse(delivery.body)).toMatchObject({
        type: 'service.created',
        data: { service_id: service.body.id, name: 'checkout' },
      });
      expect(delivery.headers['x-service-signature']).toBe(
        `sha256=${createHmac('sha256', hook.body.secret).update(delivery.body).digest('hex')}`,
      );
      expect(
        new StandardWebhook(hook.body.secret).verify(delivery.body, delivery.headers as Record<string, string>),
      ).toMatchObject({ type: 'service.created' });

      // The billing portal, also on the site's origin: cancelling there sends customer.subscription.deleted, and the account falls back to Free.
      const portal = await api.get('/me/billing/portal', { token: owner.token });
      expect(portal.status, portal.text).toBe(200);
      await page.goto(portal.body.url);
      await Promise.all([
        page.waitForURL((u) => u.pathname === '/billing', { waitUntil: 'commit' }),
        page.getByRole('button', { name: 'Cancel subscription' }).click(),
      ]);
      expect(
        stripe.events
          .filter(
            (e) =>
              e.event.type === 'customer.subscription.deleted' && e.event.data.object.metadata.account_id === owner.id,
          )
          .map((e) => e.status),
      ).toEqual([200]);
      expect((await api.get('/me/subscription', { token: owner.token })).body.plan.name).toBe('Free');
    } finally {
      await browser.close();
      receiver.close();
    }
  }, 90_000);

  it("follows a job on the progress WebSocket: the ticket authorizer, $connect, $default, and the management API's posts", async () => {
    const owner = await signUp(api);
    const { projectId, envId } = await projectWithEnv(api, owner.token);
    const started = await form('/impex/export', owner.token, { project_id: projectId, environment_id: envId });
    const ticket = await api.post('/impex/progress-ticket', { job_id: started.body.job_id }, { token: owner.token });
    expect(ticket.status, ticket.text).toBe(200);
    expect(ticket.body.url).toMatch(new RegExp(`^${deployed.url.replace(/^http/, 'ws')}/progress\\?ticket=`));
    const ws = new WebSocket(ticket.body.url);
    const final = new Promise<{ status: string }>((resolve, reject) => {
      ws.on('message', (data) => {
        const m = JSON.parse(String(data)) as { status: string };
        if (m.status === 'succeeded' || m.status === 'failed') resolve(m);
      });
      ws.on('error', reject);
    });
    await new Promise((r) => ws.on('open', r));
    ws.send(JSON.stringify({ action: 'sync' }));
    expect(await final).toMatchObject({ type: 'export.progress', job_id: started.body.job_id, status: 'succeeded' });
    ws.close();
    // Single use: the authorizer denies it the second time, and API Gateway answers 403.
    expect(await refusedUpgrade(ticket.body.url)).toBe(403);
  });

  it("follows an environment's changes: the table stream into the outbox function, posted through the management API (IAM evaluated)", async () => {
    const owner = await signUp(api);
    const { projectId, envId } = await projectWithEnv(api, owner.token);
    const live = await follow(api, owner.token, { project_id: projectId, environment_id: envId });
    const created = await api.post(
      '/services',
      { name: 'live-svc', project_id: projectId, environment_id: envId },
      { token: owner.token },
    );
    expect(created.status, created.text).toBe(201);
    expect(await live.next((m) => m.id === created.body.id, 60_000)).toMatchObject({
      kind: 'service',
      op: 'created',
      item: created.body,
    });
    live.close();
  });

  it("signs in on the dashboard in Chromium, through the distribution's paths (site files, API, one origin)", async () => {
    const user = await signUp(api);
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      const problems = await pageProblems(page);
      await page.goto(`${deployed.url}/`);
      await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Sign in');
      await page.getByLabel('Email').fill(user.email);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`${deployed.url}/p`);
      await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Projects');
      expect(problems).toEqual([]);
    } finally {
      await browser.close();
    }
  });

  it("signs in through single sign-on: the connection's secret sealed by KMS, the domain verified by the DNS stand-in, the development IdP, a new member's session", async () => {
    const owner = await signUp(api);
    await setPlan(owner.id, 'Business');
    const { projectId, envId } = await projectWithEnv(api, owner.token);
    const domain = randomDomain();
    await connect(api, owner.token, projectId, idp, dns!, [domain], {
      jit_role: { environment_id: envId, role: 'viewer' },
    });
    const email = `sam@${domain}`;
    idp.users.set('sam', { email, email_verified: true });
    const flow = await ssoFlow(api, deployed.url, { email, sub: 'sam' });
    expect(flow.res.status, flow.res.text).toBe(302);
    const tokens = await api.post('/auth/sso/token', { login_code: flow.loginCode });
    expect(tokens.status, tokens.text).toBe(200);
    const me = await api.get('/auth/me', { token: tokens.body.access_token });
    expect(me.body.email).toBe(email);
    const roles = await api.get(`/environments/${envId}/roles`, { token: owner.token });
    expect(roles.body).toContainEqual(expect.objectContaining({ user_id: me.body.id, role: 'viewer' }));
    // the refresh token of an SSO session works as a password session's does
    const refreshed = await api.post('/auth/token/refresh', { refresh_token: tokens.body.refresh_token });
    expect(refreshed.status, refreshed.text).toBe(200);
  });

  it('runs a discovery against the token provider stub: the API token sealed by KMS, the run on the jobs queue, floors made', async () => {
    stub.hetzner = [hetznerServer(101, 'web-1'), hetznerServer(102, 'db-1')];
    const owner = await signUp(api);
    await setPlan(owner.id, 'Enterprise');
    const { projectId, envId } = await projectWithEnv(api, owner.token);
    const created = await api.post(
      '/integrations/cloud-accounts',
      { project_id: projectId, environment_id: envId, provider: 'hetzner', name: 'hcloud', api_token: stub.token },
      { token: owner.token },
    );
    expect(created.status, created.text).toBe(201);
    expect(
      (await api.post('/integrations/cloud/hetzner/connect', { account_id: created.body.id }, { token: owner.token }))
        .status,
    ).toBe(200);
    const started = await api.post(`/integrations/cloud-accounts/${created.body.id}/discover`, undefined, {
      token: owner.token,
    });
    expect(started.status, started.text).toBe(202);
    const run = async () =>
      (await api.get(`/integrations/discovery-runs/${started.body.job_id}`, { token: owner.token })).body;
    await expect.poll(async () => (await run()).status, { timeout: 45_000 }).not.toMatch(/^(queued|running)$/);
    expect(await run()).toMatchObject({ status: 'succeeded', counts: { found: 2, created: 2 } });
    const floors = (
      await api.get(`/service-floors?project_id=${projectId}&environment_id=${envId}`, { token: owner.token })
    ).body as { hostname: string }[];
    expect(floors.map((f) => f.hostname).sort()).toEqual(['db-1', 'web-1']);
  }, 90_000);

  it("discovers an AWS account: STS AssumeRole with the generated external id (the grant's condition checked), EC2 DescribeInstances as the assumed role", async () => {
    const owner = await signUp(api);
    await setPlan(owner.id, 'Team');
    const { projectId, envId } = await projectWithEnv(api, owner.token);
    const roleArn = 'arn:aws:iam::123456789012:role/infra-catalog-discovery';
    const created = await api.post(
      '/integrations/cloud-accounts',
      {
        project_id: projectId,
        environment_id: envId,
        provider: 'aws',
        name: 'prod',
        role_arn: roleArn,
        regions: ['eu-west-1'],
      },
      { token: owner.token },
    );
    expect(created.status, created.text).toBe(201);
    deployed.customerAws.addRole(roleArn, created.body.external_id, {
      'eu-west-1': [{ id: 'i-0aws1', name: 'api-1', privateIp: '10.1.0.7', zone: 'eu-west-1b' }],
    });
    expect(
      (await api.post('/integrations/cloud/aws/connect', { account_id: created.body.id }, { token: owner.token })).body,
    ).toMatchObject({ status: 'connected', last_error: null });
    const started = await api.post(`/integrations/cloud-accounts/${created.body.id}/discover`, undefined, {
      token: owner.token,
    });
    expect(started.status, started.text).toBe(202);
    const run = async () =>
      (await api.get(`/integrations/discovery-runs/${started.body.job_id}`, { token: owner.token })).body;
    await expect.poll(async () => (await run()).status, { timeout: 45_000 }).not.toMatch(/^(queued|running)$/);
    expect(await run()).toMatchObject({ status: 'succeeded', counts: { found: 1, created: 1 } });
    const floors = (
      await api.get(`/service-floors?project_id=${projectId}&environment_id=${envId}`, { token: owner.token })
    ).body as { hostname: string; provider_zone: string }[];
    expect(floors.map((f) => [f.hostname, f.provider_zone])).toEqual([['api-1', 'eu-west-1b']]);
  }, 90_000);

  it('shows the audit log the changes wrote', async () => {
    const owner = await signUp(api);
    const { projectId } = await projectWithEnv(api, owner.token);
    const log = await api.get(`/projects/${projectId}/audit-log`, { token: owner.token });
    expect(log.status, log.text).toBe(200);
  });

  it("runs the scheduled rules' functions (the deadline sweep, the webhook retry sweep)", async () => {
    await deployed.fireSchedules();
    const runs = deployed.invocations();
    for (const [id] of resourcesOf(deployed.assembly, 'AWS::Events::Rule')) expect(id).toBeTruthy();
    expect(
      Object.entries(runs).filter(([id, n]) => /^(Deadlines|WebhookRetries)Function/.test(id) && n > 0),
    ).toHaveLength(2);
    expect(deployed.lines.filter((l) => /Schedule.* failed/.test(l))).toEqual([]);
  });

  it('answers a read of every other route group (each its own function)', async () => {
    const owner = await signUp(api);
    const { projectId, envId } = await projectWithEnv(api, owner.token);
    const scope = `project_id=${projectId}&environment_id=${envId}`;
    for (const path of [
      '/admin/features/my',
      `/service-floors?${scope}`,
      `/networks?${scope}`,
      `/groups?${scope}`,
      '/me/limits/status',
      `/integrations/cloud-accounts?project_id=${projectId}`,
    ]) {
      const res = await api.get(path, { token: owner.token });
      expect(res.status, `${path}: ${res.text}`).toBe(200);
    }
  });

  it("has invoked every function of the template (but CDK's own Trigger provider, CloudFormation's part)", async () => {
    await deployed.settled();
    const notInvoked = Object.entries(deployed.invocations())
      .filter(([, n]) => n === 0)
      .map(([id]) => id.replace(/[0-9A-F]{8}$/, ''))
      .sort();
    // CDK's own Trigger provider is CloudFormation's part (start:deployed runs the Trigger itself).
    expect(notInvoked).toEqual(['AWSCDKTriggerCustomResourceProviderCustomResourceProviderHandler']);
    // The closing note's list: each function with the routes and events that reached it.
    console.log(
      Object.entries(deployed.reachedBy())
        .map(([id, kinds]) => `${id}: ${kinds.join('; ')}`)
        .join('\n'),
    );
  });

  it('has taken every cloud-only branch: KMS seal and open, Secrets Manager, SES, SQS, the table stream, the management API, STS and EC2', async () => {
    await deployed.settled();
    const calls = deployed.awsCalls();
    for (const call of [
      'kms:Encrypt',
      'kms:Decrypt',
      'secretsmanager:GetSecretValue',
      'ses:SendEmail',
      'sqs:SendMessage',
      'execute-api:POST',
      'sts:AssumeRole',
      'ec2:DescribeInstances',
      'dynamodb:TransactWriteItems',
      's3:PUT',
    ]) {
      expect(calls[call] ?? 0, `${call} in ${JSON.stringify(calls)}`).toBeGreaterThan(0);
    }
    // The stream: the outbox function was given the table's records.
    expect(
      deployed
        .reachedBy()
        [
          resourcesOf(deployed.assembly, 'AWS::Lambda::Function').find(([id]) => id.startsWith('OutboxFunction'))![0]
        ].some((k) => k.startsWith('aws:dynamodb')),
    ).toBe(true);
  });

  it('has had no call denied by IAM', async () => {
    await deployed.settled();
    expect(deployed.iam.denials).toEqual([]);
  });
});

describe('start:deployed through an SQS outage', () => {
  it('mails an invitation, a password reset and an e-mail change asked for while SQS refuses every send, each once: the stream gives up, the scheduled sweep resends', async () => {
    const owner = await signUp(api);
    const { projectId } = await projectWithEnv(api, owner.token);
    const resetting = await signUp(api);
    const moving = await signUp(api);
    const invitee = uniqueEmail('outage-invitee');
    const newAddress = uniqueEmail('outage-moved');
    const addresses = [invitee, resetting.email, newAddress, moving.email];
    const eventsDlq = deployed.resolver.getAtt(
      resourcesOf(deployed.assembly, 'AWS::SQS::Queue').find(([id]) => id.startsWith('EventsDlq'))![0],
      'Arn',
    );
    const givenUpBefore = deployed.sqs.counts(eventsDlq).visible;
    deployed.sqs.useFaults(faultInjector('sqs.unavailable:1'));
    try {
      // Asked for together: their outbox items reach the stream in one batch (or few), each failed batch costing
      // the outbox function's 11 attempts, each of them the SDK's retries of SendMessage through the outage.
      const [invited, reset, moved] = await Promise.all([
        api.post('/invites', { project_id: projectId, invited_email: invitee }, { token: owner.token }),
        api.post('/auth/password/reset', { email: resetting.email }),
        api.patch('/auth/me', { email: newAddress, current_password: PASSWORD }, { token: moving.token }),
      ]);
      expect(invited.status).toBe(201);
      expect(reset.status).toBe(200);
      expect(moved.status, moved.text).toBe(200);
      // The outbox function fails each batch; the stream retries it (MaximumRetryAttempts), then gives up and sends
      // its position to the events dead-letter queue. The outbox items stay in the table.
      await deployed.settled(180_000);
      expect(deployed.sqs.counts(eventsDlq).visible).toBeGreaterThan(givenUpBefore);
      for (const to of addresses) expect(await readOutbox(deployed.dataDir, { to })).toEqual([]);
    } finally {
      deployed.sqs.useFaults(undefined);
    }
    // The webhook retry schedule's run (every minute; fired now) hands what waits to the mail queue again.
    await deployed.fireSchedules();
    for (const to of addresses)
      await expect.poll(async () => (await mailsTo(to)).length, { timeout: 60_000, interval: 1000 }).toBe(1);
    // A second run finds nothing left to send: each mail once.
    await deployed.fireSchedules();
    for (const to of addresses) expect(await mailsTo(to)).toHaveLength(1);
    const [reset] = await mailsTo(resetting.email);
    expect(
      (
        await api.post('/auth/password/reset/confirm', {
          token: linkFrom(reset, '/reset-password').searchParams.get('token'),
          new_password: 'a brand new passphrase',
        })
      ).status,
    ).toBe(200);
  }, 300_000);
});

/** The second run's tester overrides: queues' time scaled (360 s → 3.6 s), and faults the SDK's and the product's retries absorb. */
const SECOND_RUN_FAULTS =
  'ddb.throttle:0.05,kms.throttle:0.05,ses.throttle:0.2,sqs.duplicate:1,sqs.reorder:0.3,worker.kill:0.2';

describe("A second run: a grant removed from the template, faults on, queues' time scaled", () => {
  let denied: TestDeployed;
  beforeAll(async () => {
    // A copy of the template whose auth function's role lost its KMS grant.
    const template = JSON.parse(readFileSync(join(cdk.dir, 'InfraCatalog.template.json'), 'utf8'));
    const policy = Object.entries(template.Resources).find(([id]) =>
      id.startsWith('AuthFunctionServiceRoleDefaultPolicy'),
    )![1] as { Properties: { PolicyDocument: { Statement: { Action: string | string[] }[] } } };
    policy.Properties.PolicyDocument.Statement = policy.Properties.PolicyDocument.Statement.filter(
      (s) => ![s.Action].flat().includes('kms:Encrypt'),
    );
    const file = join(cdk.dir, 'denied.template.json');
    writeFileSync(file, JSON.stringify(template));
    denied = await startTestDeployed(cdk.dir, {
      templateFile: file,
      env: {
        PATH: process.env.PATH,
        ...DEPLOYED_TEST_ENV,
        DEPLOYED_VISIBILITY_SCALE: '0.005',
        FAULTS: SECOND_RUN_FAULTS,
        FAULTS_SEED: '7',
      },
    });
  }, 120_000);
  afterAll(async () => denied?.stop(), 60_000);

  it('refuses the call the role does not grant (logged with action and resource), and the request fails cleanly with a request id', async () => {
    const deniedApi = client(() => denied.url);
    const user = await signUp(deniedApi);
    const { body } = await deniedApi.post('/auth/totp/provision', undefined, { token: user.token });
    // A 500 is no documented answer: read it without the client's OpenAPI check.
    const res = await fetch(`${denied.url}/auth/totp/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${user.token}` },
      body: JSON.stringify({ secret: body.secret, code: await totpCode(body.secret, new Date()), name: 'Phone' }),
    });
    expect([res.status, await res.json()]).toEqual([500, { detail: 'Internal Server Error' }]);
    expect(res.headers.get('apigw-requestid')).toBeTruthy();
    expect(denied.iam.denials).toEqual([
      expect.objectContaining({
        action: 'kms:Encrypt',
        resource: expect.stringMatching(/^arn:aws:kms:us-east-1:000000000000:key\//),
      }),
    ]);
    expect(denied.lines.some((l) => l.includes('IAM DENIED') && l.includes('kms:Encrypt'))).toBe(true);
    // Nothing half-written: no device was enrolled.
    expect((await deniedApi.get('/auth/totp/devices', { token: user.token })).body).toEqual([]);
  });

  it('moves a message its worker fails past maxReceiveCount to its dead-letter queue, where the operator reads it', async () => {
    const queueUrl = (suffix: string) =>
      denied.resolver.ref(
        resourcesOf(denied.assembly, 'AWS::SQS::Queue').find(([id]) => id.startsWith(`Mail${suffix}`))![0],
      );
    const operator = new SQSClient({
      region: denied.region,
      endpoint: denied.awsEndpoint,
      credentials: { accessKeyId: OPERATOR_ACCESS_KEY, secretAccessKey: 'x' },
    });
    // A body the mail worker's schema refuses: reported failed on each receive, never dropped.
    const poison = JSON.stringify({ kind: 'no-such-mail', at: Date.now() });
    await operator.send(new SendMessageCommand({ QueueUrl: queueUrl('Queue'), MessageBody: poison }));
    let moved: Message | undefined;
    await expect
      .poll(
        async () => {
          const { Messages = [] } = await operator.send(
            new ReceiveMessageCommand({
              QueueUrl: queueUrl('Dlq'),
              MaxNumberOfMessages: 10,
              VisibilityTimeout: 0,
              MessageSystemAttributeNames: ['All'],
            }),
          );
          return (moved = Messages.find((m) => m.Body === poison));
        },
        { timeout: 45_000, interval: 500 },
      )
      .toBeDefined();
    // Received maxReceiveCount (5) times from its queue, its count kept in the dead-letter queue, as SQS keeps it.
    expect(Number(moved!.Attributes?.ApproximateReceiveCount)).toBeGreaterThan(5);
    expect(
      denied.lines.filter((l) => l.startsWith('[MailWorker') && l.includes('message malformed')).length,
    ).toBeGreaterThanOrEqual(5);
  }, 60_000);

  it('with faults on, answers the typed client 2xx (its retries included), mails one invitation although every message comes twice, and keeps no duplicate', async () => {
    expect(denied.functions.every((f) => f.environment.FAULTS === SECOND_RUN_FAULTS)).toBe(true);
    const owner = createInfracatClient({
      baseUrl: denied.url,
      retry: { attempts: 8 },
      sleep: (ms) => new Promise((r) => setTimeout(r, Math.min(ms, 200))),
    });
    const email = uniqueEmail('faults');
    await owner.api.POST('/auth/register', { body: { email, password: PASSWORD } } as never);
    await owner.login({ email, password: PASSWORD });
    const { data: project } = await owner.api.POST('/projects', { body: { name: 'faults' } });
    const { data: env } = await owner.api.POST('/environments', { body: { name: 'prod', project_id: project!.id } });
    const names = ['a', 'b', 'c', 'd']; // the Free plan's 5 services at most
    for (const name of names)
      await owner.api.POST('/services', { body: { name, project_id: project!.id, environment_id: env!.id } as never });
    const invitee = uniqueEmail('faults-invitee');
    await owner.api.POST('/invites', { body: { project_id: project!.id, invited_email: invitee } as never });
    await denied.settled(60_000);
    expect(denied.faultCounts()['sqs.duplicate']).toBeGreaterThan(0);
    expect(await readOutbox(denied.dataDir, { to: invitee })).toHaveLength(1);
    const { data: listed } = (await owner.api.GET('/services', {
      params: { query: { project_id: project!.id, environment_id: env!.id } },
    } as never)) as { data: { name: string }[] };
    expect(listed.map((s) => s.name).sort()).toEqual(names);
  }, 120_000);
});
