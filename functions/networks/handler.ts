import { httpHandler } from '../../shared/http/pipeline';
import { routeTable } from '../route-table';

export const handler = httpHandler(routeTable.networks);
