import { notFound } from '../errors.ts';
import {
  allShippingLines,
  type ShippingLine,
  shippingLineById,
  shippingLineByScac,
} from '../reference/data.ts';

// Shipping line use cases over the shipped reference data (the same for every account).

/** Every line, or those whose name, short name or SCAC (or an alternative SCAC) contains `search`. */
export function listShippingLines(search?: string): ShippingLine[] {
  const lines = allShippingLines();
  const needle = search?.trim().toLowerCase();
  if (!needle) return lines;
  return lines.filter(
    (l) =>
      l.name.toLowerCase().includes(needle) ||
      l.short_name.toLowerCase().includes(needle) ||
      l.scac.toLowerCase().includes(needle) ||
      l.alternative_scacs.some((s) => s.toLowerCase().includes(needle)),
  );
}

/** A shipping line by id or SCAC; 404 from the catalogue otherwise. */
export function getShippingLine(idOrScac: string): ShippingLine {
  const line = shippingLineById(idOrScac) ?? shippingLineByScac(idOrScac);
  if (!line) throw notFound('No shipping line with this id or SCAC.');
  return line;
}
