import type { Method, Route } from './route';

export interface Match {
  route: Route;
  params: Record<string, string>;
}

interface Compiled {
  route: Route;
  key: string;
  pattern: RegExp;
  names: string[];
  literalSegments: number;
}

export const routeKey = (r: Pick<Route, 'method' | 'path'>) => `${r.method} ${r.path}`;

function compile(route: Route): Compiled {
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
    names.forEach((n, i) => (params[n] = decodeURIComponent(m[i + 1])));
  } catch {
    return undefined;
  }
  return params;
}

/**
 * Matches requests against a route table. Literal segments win over parameters
 * (`/projects/stats` before `/projects/{project_id}`), as API Gateway does.
 */
export function createRouter(routes: Route[]) {
  const compiled = routes.map(compile).sort((a, b) => b.literalSegments - a.literalSegments);
  const byKey = new Map(compiled.map((c) => [c.key, c]));
  const seen = new Set<string>();
  for (const c of compiled) {
    if (seen.has(c.key)) throw new Error(`Route declared twice: ${c.key}`);
    seen.add(c.key);
  }

  function matchPath(method: string, path: string): Match | undefined {
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
    /** API Gateway hands us the matched route key; fall back to the raw path for `$default` and local calls. */
    match(method: Method | string, path: string, key?: string, pathParameters?: Record<string, string | undefined>): Match | undefined {
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
