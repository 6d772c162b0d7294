import type { Method, Route } from './route.ts';

/** What the router reads of a route: its method and path template. */
export type Routable = Pick<Route, 'method' | 'path'>;

export interface Match<R extends Routable = Route> {
  route: R;
  params: Record<string, string>;
}

interface Compiled<R extends Routable> {
  route: R;
  key: string;
  pattern: RegExp;
  names: string[];
  literalSegments: number;
}

export const routeKey = (r: Routable) => `${r.method} ${r.path}`;

function compile<R extends Routable>(route: R): Compiled<R> {
  const names: string[] = [];
  const segments = route.path.split('/').filter(Boolean);
  const source = segments
    .map((seg) => {
      const m = /^\{(\w+)\}$/.exec(seg);
      if (!m) return seg.replace(/[.*+?^$()|[\]\\-]/g, '\\$&');
      names.push(m[1]);
      return '([^/]+)';
    })
    .join('/');
  return {
    route,
    key: routeKey(route),
    pattern: new RegExp(`^/${source}/?$`),
    names,
    literalSegments: segments.length - names.length,
  };
}

/** Path parameters, percent-decoded; undefined when one holds a malformed escape (`%ZZ`, `%E0%A4`). */
function decodeParams(names: string[], m: RegExpExecArray): Record<string, string> | undefined {
  const params: Record<string, string> = {};
  try {
    names.forEach((n, i) => {
      params[n] = decodeURIComponent(m[i + 1]);
    });
  } catch {
    return undefined;
  }
  return params;
}

/**
 * Matches requests against a route table. Literal segments win over parameters
 * (`/projects/stats` before `/projects/{project_id}`), as API Gateway does.
 */
export function createRouter<R extends Routable = Route>(routes: R[]) {
  const compiled = routes.map(compile).sort((a, b) => b.literalSegments - a.literalSegments);
  const byKey = new Map(compiled.map((c) => [c.key, c]));
  const seen = new Set<string>();
  for (const c of compiled) {
    if (seen.has(c.key)) throw new Error(`Route declared twice: ${c.key}`);
    seen.add(c.key);
  }

  function matchPath(method: string, path: string): Match<R> | undefined {
    for (const c of compiled) {
      if (c.route.method !== method) continue;
      const m = c.pattern.exec(path);
      if (!m) continue;
      const params = decodeParams(c.names, m);
      // A malformed percent-escape (`/services/%ZZ`) names no resource: Not Found, like any unknown path.
      if (!params) return undefined;
      return { route: c.route, params };
    }
    return undefined;
  }

  return {
    routes: compiled.map((c) => c.route),
    /** The methods some route answers at `path` (the Allow header of a 405); none for an unknown or malformed path. */
    methodsAt(path: string): string[] {
      return [
        ...new Set(
          compiled
            .filter((c) => {
              const m = c.pattern.exec(path);
              return m && decodeParams(c.names, m);
            })
            .map((c) => c.route.method),
        ),
      ];
    },
    /** API Gateway hands us the matched route key; fall back to the raw path for `$default` and local calls. */
    match(
      method: Method | string,
      path: string,
      key?: string,
      pathParameters?: Record<string, string | undefined>,
    ): Match<R> | undefined {
      const hit = key ? byKey.get(key) : undefined;
      if (hit) {
        const params: Record<string, string> = {};
        for (const n of hit.names) params[n] = pathParameters?.[n] ?? '';
        return { route: hit.route, params };
      }
      return matchPath(method.toUpperCase(), path);
    },
  };
}

export type Router<R extends Routable = Route> = ReturnType<typeof createRouter<R>>;
