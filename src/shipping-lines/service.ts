import { notFound } from '../errors.ts';
import {
  allShippingLines,
  type ShippingLine,
  shippingLineById,
  shippingLineByScac,
} from '../reference/data.ts';

// Shipping line use cases over the shipped reference data (the same for every account).

export function listShippingLines(): ShippingLine[] {
  return allShippingLines();
}

/** A shipping line by id or SCAC; 404 from the catalogue otherwise. */
export function getShippingLine(idOrScac: string): ShippingLine {
  const line = shippingLineById(idOrScac) ?? shippingLineByScac(idOrScac);
  if (!line) throw notFound('No shipping line with this id or SCAC.');
  return line;
}
