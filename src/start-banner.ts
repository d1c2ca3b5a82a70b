import type { Account } from './accounts/service.ts';

// What `npm start` prints before it serves: the new default account and its key on an empty
// database; on one with accounts, how to get a key again (keys are stored hashed, so a lost key
// is replaced, never shown). Pure, so the server prints it and a test reads it the same way.

/** At most this many accounts are named in the banner; the rest are behind `accounts list`. */
const NAMED = 3;

export function startBanner(
  origin: string,
  state: { created: { account: Account; apiKey: string } } | { accounts: Account[] },
): string {
  const links = [
    `  Console: ${origin}/   (sign in with the key)`,
    `  API:  ${origin}/v2   (Authorization: Token <key> or Bearer <key>)`,
    `  Docs: ${origin}/docs`,
  ];
  if ('created' in state) {
    const { account, apiKey } = state.created;
    return [
      '',
      'Created the default account. Its API key is shown once; keep it:',
      '',
      `  account: ${account.id}`,
      `  api key: ${apiKey}`,
      '',
      ...links,
      '',
    ].join('\n');
  }
  const named = state.accounts.slice(0, NAMED);
  const more = state.accounts.length - named.length;
  return [
    '',
    'API keys are shown only when they are made. A new key for an account:',
    '',
    ...named.map((a) => `  npm run cli -- api-keys create --account ${a.id}   (${a.name})`),
    ...(more > 0 ? [`  (${more} more: npm run cli -- accounts list)`] : []),
    '',
    ...links,
    '',
  ].join('\n');
}
