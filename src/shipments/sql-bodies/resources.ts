import type { Form, Json } from '../../members/json-text.ts';
import { resourceJson } from '../../members/kit.ts';
import { type StoredTable, storedTableOf } from '../../members/stored.ts';
import { VESSEL } from '../../reference/vessel-members.ts';
import { TRANSPORT_EVENT } from '../containers/event-members.ts';
import { CONTAINER } from '../containers/members.ts';
import { SHIPMENT } from '../members.ts';

// The resources of the hot reads as SQL JSON text, made of their declarations (../members.ts,
// ../containers/members.ts; src/members/kit.ts): the stored runs read from their columns, the
// other members written at the read. test/api/sql-bodies.test.ts compares whole bodies of
// this path and the serializers'.

/** A shipment; `s` is the shipment row, `v` its POD vessel (left joined). */
export const shipmentJson = (form: Form): Json => resourceJson(SHIPMENT, form, 's', true);

/** A container; `c` is the container row, `s` its shipment. */
export const containerJson = (form: Form): Json => resourceJson(CONTAINER, form, 'c', true);

/** Every table with stored pieces, and the trigger function that renders them. */
export const STORED_TABLES: StoredTable[] = [SHIPMENT, CONTAINER, TRANSPORT_EVENT, VESSEL].map(storedTableOf);
