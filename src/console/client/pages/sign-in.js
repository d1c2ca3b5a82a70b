import { useState } from 'preact/hooks';
import { createApi } from '../api.js';
import { ErrorBox, html } from '../ui.js';

/** Checks the key with one cheap API call before anything is shown; a wrong key shows no data. */
export function SignIn({ onSignedIn, notice }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);

  async function submit(e) {
    e.preventDefault();
    const k = key.trim();
    if (!k) return setError(new Error('Enter an API key.'));
    setBusy(true);
    setError(null);
    try {
      await createApi(k).get('/shipments?page[size]=1');
      onSignedIn(k);
    } catch (err) {
      setError(err.status === 401 ? new Error(`That API key was refused: ${err.message}`) : err);
      setBusy(false);
    }
  }

  return html`<section class="signin panel">
    <h1 tabindex="-1">Sign in</h1>
    ${notice ? html`<div class="alert" role="alert">Signed out: ${notice}</div>` : null}
    <form onSubmit=${submit}>
      <div class="field">
        <label for="api-key">API key</label>
        <input
          id="api-key"
          name="api-key"
          type="password"
          autocomplete="off"
          spellcheck="false"
          value=${key}
          onInput=${(e) => setKey(e.currentTarget.value)}
          autofocus
        />
        <p class="hint">
          The key stays in this tab only (sessionStorage): closing the tab signs you out. Create keys with
          <code>npm run cli -- api-keys create</code>.
        </p>
      </div>
      <${ErrorBox} error=${error} />
      <button type="submit" disabled=${busy}>${busy ? 'Signing in…' : 'Sign in'}</button>
    </form>
  </section>`;
}
