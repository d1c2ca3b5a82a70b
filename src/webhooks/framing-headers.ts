// Request headers a webhook's configuration may not set: they would corrupt the request framing
// or are rejected by undici. Subscriptions refuse them; delivery drops them should one be stored.
export const FRAMING_HEADERS: readonly string[] = [
  'host',
  'content-length',
  'content-type',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'expect',
  'te',
  'trailer',
];
