import { impexProgressOf } from '#domain/impex';
import { discoveryProgressOf } from '#domain/discovery';
import { liveConnectionItems, startLive } from '#domain/live';
import { connect, connectionOf, disconnect, syncConnection, type LiveBinding } from '#shared/progress';
import { appContext } from '#shared/context';
import { invocation } from '#shared/observe';

/**
 * The progress WebSocket API's `$connect` (after the authorizer in `authorizer.ts` spent the ticket),
 * `$default` (a client's message: a job's current state, or a live connection's start) and `$disconnect`.
 */
interface WebSocketEvent {
  requestContext: {
    routeKey: string;
    connectionId: string;
    authorizer?: { userId?: string; jobId?: string; live?: string };
  };
}

export const handler = (event: WebSocketEvent): Promise<{ statusCode: number }> =>
  invocation(
    { correlationId: event.requestContext.connectionId, dimensions: { route: event.requestContext.routeKey } },
    () => serve(event),
  );

async function serve(event: WebSocketEvent): Promise<{ statusCode: number }> {
  const { routeKey, connectionId, authorizer: who } = event.requestContext;
  if (routeKey === '$connect') {
    if (!who?.userId || !(who.jobId || who.live)) return { statusCode: 401 };
    if (who.live) {
      const live = JSON.parse(who.live) as LiveBinding;
      await connect(appContext(), {
        connectionId,
        userId: who.userId,
        envId: live.environment_id,
        also: liveConnectionItems(connectionId, who.userId, live),
      });
    } else await connect(appContext(), { connectionId, userId: who.userId, jobId: who.jobId });
    return { statusCode: 200 };
  }
  if (routeKey === '$disconnect') await disconnect({ connectionId });
  // $default: any message asks for a job's current state, or starts a live connection.
  else if ((await connectionOf(connectionId))?.envId) await startLive(appContext(), connectionId);
  else await syncConnection({ connectionId }, [impexProgressOf, discoveryProgressOf]);
  return { statusCode: 200 };
}
