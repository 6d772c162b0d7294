import { eachOffsetPage } from '@infracat/client/paging';
import { api, type Service, type ServiceQuery } from './api';

/** Every service of an environment matching the filters, page after page (SPEC's limit/offset); `onPage` sees the list so far. */
export async function allServices(
  query: Omit<ServiceQuery, 'limit' | 'offset'>,
  onPage?: (sofar: Service[]) => void,
  signal?: AbortSignal,
): Promise<Service[]> {
  const out: Service[] = [];
  const pages = eachOffsetPage((page) => api.GET('/services', { params: { query: { ...query, ...page } }, signal }), {
    limit: 1000,
  });
  for await (const page of pages) {
    out.push(...page);
    onPage?.(out);
  }
  return out;
}
