import { impexProgressOf } from '#domain/impex';
import { discoveryProgressOf } from '#domain/discovery';
import { connect, disconnect, syncConnection } from '#shared/progress';
import { appContext } from '#shared/context';
import { invocation } from '#shared/observe';

/** The progress WebSocket API's `$connect` (after the authorizer in `authorizer.ts` spent the ticket) and `$disconnect`. */
interface WebSocketEvent {
  requestContext: { routeKey: string; connectionId: string; authorizer?: { userId?: string; jobId?: string } };
}

export const handler = (event: WebSocketEvent): Promise<{ statusCode: number }> =>
  invocation(
    { correlationId: event.requestContext.connectionId, dimensions: { route: event.requestContext.routeKey } },
    () => serve(event),
  );

async function serve(event: WebSocketEvent): Promise<{ statusCode: number }> {
  const { routeKey, connectionId, authorizer: who } = event.requestContext;
  if (routeKey === '$connect') {
    if (!who?.userId || !who.jobId) return { statusCode: 401 };
    await connect(appContext(), { connectionId, userId: who.userId, jobId: who.jobId });
    return { statusCode: 200 };
  }
  if (routeKey === '$disconnect') await disconnect({ connectionId });
  else await syncConnection({ connectionId }, [impexProgressOf, discoveryProgressOf]); // $default: any message asks for the current state
  return { statusCode: 200 };
}
