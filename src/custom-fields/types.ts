// Custom field vocabulary shared by the service, queries and serializer.

export const ENTITY_TYPES = ['Shipment', 'Container', 'TrackingRequest'] as const;
export type EntityType = (typeof ENTITY_TYPES)[number];

export const DATA_TYPES = [
  'short_text',
  'number',
  'date',
  'datetime',
  'boolean',
  'enum',
  'enum_multi',
  'reference',
] as const;
export type DataType = (typeof DATA_TYPES)[number];

/** A definition's entity type and the JSON:API type of the entities its values belong to. */
export const RESOURCE_TYPE: Record<EntityType, 'shipment' | 'container' | 'tracking_request'> = {
  Shipment: 'shipment',
  Container: 'container',
  TrackingRequest: 'tracking_request',
};
export type ResourceType = (typeof RESOURCE_TYPE)[EntityType];
export const ENTITY_OF: Record<ResourceType, EntityType> = {
  shipment: 'Shipment',
  container: 'Container',
  tracking_request: 'TrackingRequest',
};
/** The table holding each kind of entity. */
export const TABLE_OF = {
  shipment: 'shipments',
  container: 'containers',
  tracking_request: 'tracking_requests',
} as const;

export interface Definition {
  id: string;
  entity_type: EntityType;
  api_slug: string;
  display_name: string;
  description: string | null;
  data_type: DataType;
  reference_type: string | null;
  validation: Record<string, unknown> | null;
  default_format: string | null;
  default_value: unknown;
  created_at: Date;
  updated_at: Date;
}

export interface Option {
  id: string;
  definition_id: string;
  label: string;
  value: string;
  position: number | null;
  created_at: Date;
  updated_at: Date;
}

export interface FieldValue {
  id: string;
  definition_id: string;
  api_slug: string;
  data_type: DataType;
  entity_type: ResourceType;
  entity_id: string;
  value: unknown;
  created_at: Date;
  updated_at: Date;
}
