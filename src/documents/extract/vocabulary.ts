// The labels carriers print, per field. Order matters: the most specific form first.

const L = (s: string) => new RegExp(s, 'i');

export const LABELS = {
  bl: [
    L(
      '\\b(?:B\\s*/\\s*L|BL|Bill\\s+of\\s+Lading|Waybill|SWB|MBL|Master\\s+B/?L)\\s*(?:No\\.?|Number|Nr\\.?|#)',
    ),
    L('\\bBill\\s+of\\s+Lading\\s*:'),
  ],
  booking: [
    L('\\bBooking\\s*(?:No\\.?|Number|Ref(?:erence)?\\.?|Nr\\.?|#)'),
    L('\\bBkg\\.?\\s*(?:No\\.?|#)'),
  ],
  scac: [L('\\bSCAC(?:\\s*Code)?\\b')],
  carrier: [L('\\bCarrier(?:\\s+Name)?\\b'), L('\\bShipping\\s+Line\\b'), L('\\bOcean\\s+Carrier\\b')],
  vessel: [
    L('\\b(?:Ocean\\s+)?Vessel(?:\\s+Name)?\\b(?!\\s*/)'),
    L('\\bVessel\\s*/\\s*Voyage\\b'),
    L('\\bShip\\b'),
  ],
  voyage: [L('\\bVoyage\\s*(?:No\\.?|Number|#)?'), L('\\bVoy\\.?\\s*(?:No\\.?)?')],
  pol: [
    L('\\bPort\\s+of\\s+Loading\\b'),
    L('\\bPort\\s+of\\s+Lading\\b'),
    L('\\bPOL\\b'),
    L('\\bLoad(?:ing)?\\s+Port\\b'),
  ],
  pod: [L('\\bPort\\s+of\\s+Discharge\\b'), L('\\bPOD\\b'), L('\\bDischarge\\s+Port\\b')],
  receipt: [L('\\bPlace\\s+of\\s+Receipt\\b')],
  delivery: [L('\\bPlace\\s+of\\s+Delivery\\b'), L('\\bFinal\\s+Destination\\b')],
  shipper: [L('\\bShipper(?:\\s*/\\s*Exporter)?\\b'), L('\\bExporter\\b')],
  consignee: [L('\\bConsignee\\b')],
  notify: [L('\\bNotify\\s+Party\\b'), L('\\bNotify\\b')],
  issueDate: [
    L('\\b(?:Date\\s+of\\s+Issue|Issue\\s+Date|Place\\s+and\\s+Date\\s+of\\s+Issue|Date\\s+Issued)\\b'),
  ],
  onBoard: [L('\\b(?:Shipped\\s+on\\s+Board|On\\s+Board)\\s*(?:Date)?\\b'), L('\\bLaden\\s+on\\s+Board\\b')],
  etd: [L('\\bETD\\b'), L('\\bEstimated\\s+(?:Time\\s+of\\s+)?Departure\\b'), L('\\bSailing\\s+Date\\b')],
  eta: [L('\\bETA\\b'), L('\\bEstimated\\s+(?:Time\\s+of\\s+)?Arrival\\b'), L('\\bArrival\\s+Date\\b')],
  invoiceNo: [L('\\bInvoice\\s*(?:No\\.?|Number|Nr\\.?|#)')],
  invoiceDate: [L('\\bInvoice\\s+Date\\b'), L('\\bDate\\b')],
  seller: [L('\\bSeller\\b'), L('\\bExporter\\b'), L('\\bShipper\\b'), L('\\bSold\\s+By\\b')],
  buyer: [L('\\bBuyer\\b'), L('\\bSold\\s+To\\b'), L('\\bImporter\\b'), L('\\bConsignee\\b')],
  currency: [L('\\bCurrency\\b')],
  total: [
    L('\\b(?:Total\\s+(?:Amount|Value|Invoice\\s+Value|Due)|Grand\\s+Total|Invoice\\s+Total)\\b'),
    L('\\bTotal\\b'),
  ],
  packingNo: [L('\\bPacking\\s+List\\s*(?:No\\.?|Number|#)')],
};

const ALL = Object.values(LABELS).flat();
const MORE = [
  L(
    '^(?:Description|Marks|Container\\s*(?:No|Number)|Seal|Gross\\s+Weight|Measurement|Freight|Qty|Quantity|Unit\\s+Price|Amount|Packages)\\b',
  ),
  L('^(?:Also\\s+Notify|Forwarding\\s+Agent|Pre-?carriage|Terms|Payment|Incoterms?|Signature|Page)\\b'),
];

/** True when the whole text is a label (what a value never is). */
export function isLabel(text: string): boolean {
  const t = text.trim().replace(/[:#.]+$/, '');
  if (!t) return true;
  return [...ALL, ...MORE].some((re) => {
    const m = re.exec(t);
    return m !== null && m.index === 0 && t.length - m[0].length <= 3;
  });
}
