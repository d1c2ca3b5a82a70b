import type { Resource } from '../jsonapi/resource.ts';
import { schemaOf, serializerOf } from '../members/kit.ts';
import { TRACKING_REQUEST } from './members.ts';
import type { TrackingRequest } from './queries.ts';

// The tracking request is declared member by member in members.ts; its schema and serializer are
// made from the declaration.

export { FAILED_REASONS, STATUSES } from './members.ts';

export const TrackingRequestSchema = schemaOf(TRACKING_REQUEST);

const serialize = serializerOf(TRACKING_REQUEST);
export const serializeTrackingRequest = (tr: TrackingRequest): Resource => serialize(tr, undefined);
