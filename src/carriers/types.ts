// The carrier port is defined by the engine (src/engine/carrier.ts), which adapters implement;
// re-exported here for the adapters and the rest of the product.

export type {
  CarrierAdapter,
  LookupContext,
  LookupResult,
  NumberType,
  PermanentFailure,
  TemporaryFailure,
} from '../engine/carrier.ts';
