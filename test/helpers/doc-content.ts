import { checkDigit } from '../../src/util/iso6346.ts';

// Made-up shipping documents with their true values: what the fixture renderers draw and what
// extraction is measured against. Deterministic from a seed.

export interface TrueContainer {
  number: string;
  size_type: string;
  seal: string;
  weight_kg: number;
}

export interface TrueDoc {
  kind: 'bill_of_lading' | 'arrival_notice' | 'commercial_invoice' | 'sea_waybill' | 'booking_confirmation';
  title: string;
  fields: Record<string, string>;
  parties: Record<string, { name: string; address: string }>;
  containers: TrueContainer[];
  lines?: Array<{ description: string; quantity: number; unit_price: number; amount: number }>;
  /** Expected extraction, flat: field -> value. */
  expect: Record<string, string | number | null>;
}

function rng(seed: number) {
  let s = seed >>> 0 || 1;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

export function containerNumber(owner: string, serial: number): string {
  const first10 = `${owner}U${String(serial).padStart(6, '0')}`;
  return `${first10}${checkDigit(first10)}`;
}

const VESSELS = ['MAERSK ESSEX', 'MSC ANNA', 'EVER GIVEN', 'CMA CGM MARCO POLO', 'HMM ALGECIRAS', 'ONE APUS'];
const POLS = [
  ['SHANGHAI, CHINA', 'CNSGH'],
  ['NINGBO, CHINA', 'CNNBO'],
  ['SINGAPORE', 'SGSIN'],
  ['BUSAN, KOREA', 'KRPUS'],
  ['YANTIAN, CHINA', 'CNYTN'],
];
const PODS = [
  ['ROTTERDAM, NETHERLANDS', 'NLRTM'],
  ['LOS ANGELES, CA', 'USLAX'],
  ['HAMBURG, GERMANY', 'DEHAM'],
  ['ANTWERP, BELGIUM', 'BEANR'],
  ['FELIXSTOWE, UNITED KINGDOM', 'GBFXT'],
];
const CARRIERS = [
  ['MAEU', 'Maersk'],
  ['HLCU', 'Hapag-Lloyd'],
  ['TEST', 'Test Shipping Line'],
];
const SHIPPERS = ['ACME EXPORT CO LTD', 'GREAT WALL TRADING', 'PACIFIC TOOLS MFG', 'SUNRISE TEXTILES LTD'];
const CONSIGNEES = [
  'NORDIC IMPORTS BV',
  'WESTCOAST RETAIL INC',
  'RHEIN HANDEL GMBH',
  'BRITISH HOMEWARES LTD',
];

const pick = <T>(r: () => number, xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!;

export function transportDoc(
  seed: number,
  kind: TrueDoc['kind'] = 'bill_of_lading',
  opts: { scac?: string; bl?: string } = {},
): TrueDoc {
  const r = rng(seed);
  const carrier = opts.scac
    ? (CARRIERS.find((c) => c[0] === opts.scac) ?? [opts.scac, opts.scac])
    : pick(r, CARRIERS);
  const [pol, polCode] = pick(r, POLS);
  const [pod, podCode] = pick(r, PODS);
  const bl = opts.bl ?? `${carrier[0]}${String(Math.floor(r() * 1e9)).padStart(9, '0')}`;
  const booking = `BK${String(Math.floor(r() * 1e8)).padStart(8, '0')}`;
  const vessel = pick(r, VESSELS);
  const voyage = `${100 + Math.floor(r() * 800)}${pick(r, ['E', 'W', 'N', 'S'])}`;
  const n = 1 + Math.floor(r() * 3);
  const containers: TrueContainer[] = [];
  for (let i = 0; i < n; i++) {
    containers.push({
      number: containerNumber(pick(r, ['MSK', 'HLX', 'TGH', 'CAI', 'TCL']), Math.floor(r() * 999_999)),
      size_type: pick(r, ['40HC', '20GP', '40GP']),
      seal: `SL${String(Math.floor(r() * 1e7)).padStart(7, '0')}`,
      weight_kg: 5000 + Math.floor(r() * 20000),
    });
  }
  const shipper = { name: pick(r, SHIPPERS), address: '88 HARBOUR ROAD, SHANGHAI' };
  const consignee = { name: pick(r, CONSIGNEES), address: '12 DOCK STREET, ROTTERDAM' };
  const month = 1 + Math.floor(r() * 9);
  const issue = `2026-0${month}-1${Math.floor(r() * 9)}`;
  const eta = `2026-${String(month + 1).padStart(2, '0')}-2${Math.floor(r() * 8)}`;
  const titles: Record<TrueDoc['kind'], string> = {
    bill_of_lading: 'BILL OF LADING',
    sea_waybill: 'SEA WAYBILL',
    arrival_notice: 'ARRIVAL NOTICE',
    booking_confirmation: 'BOOKING CONFIRMATION',
    commercial_invoice: 'COMMERCIAL INVOICE',
  };
  const fields: Record<string, string> = {
    'B/L No.': bl,
    'Booking No.': booking,
    SCAC: carrier[0]!,
    Carrier: carrier[1]!,
    Vessel: vessel,
    'Voyage No.': voyage,
    'Port of Loading': pol!,
    'Port of Discharge': pod!,
    'Place of Delivery': pod!.split(',')[0]!,
    [kind === 'arrival_notice' ? 'ETA' : 'Date of Issue']: kind === 'arrival_notice' ? eta : issue,
  };
  return {
    kind,
    title: titles[kind],
    fields,
    parties: {
      Shipper: shipper,
      Consignee: consignee,
      'Notify Party': { name: consignee.name, address: consignee.address },
    },
    containers,
    expect: {
      document_type: kind,
      bill_of_lading_number: bl,
      booking_number: booking,
      scac: carrier[0]!,
      vessel_name: vessel,
      voyage_number: voyage,
      'port_of_loading.locode': polCode!,
      'port_of_discharge.locode': podCode!,
      'shipper.name': shipper.name,
      'consignee.name': consignee.name,
      [kind === 'arrival_notice' ? 'estimated_arrival_date' : 'issue_date']:
        kind === 'arrival_notice' ? eta : issue,
      ...Object.fromEntries(
        containers.flatMap((c, i) => [
          [`containers.${i}.number`, c.number],
          [`containers.${i}.size_type`, c.size_type],
          [`containers.${i}.seal`, c.seal],
          [`containers.${i}.weight_kg`, c.weight_kg],
        ]),
      ),
    },
  };
}

export function invoiceDoc(seed: number, bl?: string): TrueDoc {
  const r = rng(seed);
  const no = `INV-${2026}${String(Math.floor(r() * 1e5)).padStart(5, '0')}`;
  const lines = [
    { description: 'STEEL BOLTS M8', quantity: 500, unit_price: 1.2, amount: 600 },
    { description: 'HEX NUTS M8', quantity: 1000, unit_price: 0.35, amount: 350 },
    { description: 'WASHERS 8MM', quantity: 2000, unit_price: 0.1, amount: 200 },
  ].slice(0, 2 + Math.floor(r() * 2));
  const total = lines.reduce((a, l) => a + l.amount, 0);
  const blNo = bl ?? `MAEU${String(Math.floor(r() * 1e9)).padStart(9, '0')}`;
  const seller = { name: pick(r, SHIPPERS), address: '88 HARBOUR ROAD, SHANGHAI' };
  const buyer = { name: pick(r, CONSIGNEES), address: '12 DOCK STREET, ROTTERDAM' };
  return {
    kind: 'commercial_invoice',
    title: 'COMMERCIAL INVOICE',
    fields: { 'Invoice No.': no, 'Invoice Date': '2026-03-14', Currency: 'USD', 'B/L No.': blNo },
    parties: { Seller: seller, Buyer: buyer },
    containers: [],
    lines,
    expect: {
      document_type: 'commercial_invoice',
      invoice_number: no,
      invoice_date: '2026-03-14',
      currency: 'USD',
      'seller.name': seller.name,
      'buyer.name': buyer.name,
      total_amount: total,
      bill_of_lading_number: blNo,
      ...Object.fromEntries(lines.flatMap((l, i) => [[`lines.${i}.amount`, l.amount]])),
    },
  };
}
