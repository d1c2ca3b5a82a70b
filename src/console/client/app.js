// The console's shell: sign-in, navigation and a hash router (#/shipments, #/shipments/<id>,
// #/tracking-requests, #/import, #/webhooks, #/alerts, and #/documents when the server has the documents API). Pages live in ./pages/.
import { render } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { createApi, forgetKey, savedKey, saveKey } from './api.js';
import { Alerts } from './pages/alerts.js';
import { DocumentDetail } from './pages/document.js';
import { Documents } from './pages/documents.js';
import { Import } from './pages/import.js';
import { ShipmentDetail } from './pages/shipment.js';
import { Shipments } from './pages/shipments.js';
import { SignIn } from './pages/sign-in.js';
import { TrackingRequests } from './pages/tracking-requests.js';
import { Webhooks } from './pages/webhooks.js';
import { html } from './ui.js';

const NAV = [
  { href: '#/shipments', label: 'Shipments', section: 'shipments' },
  { href: '#/tracking-requests', label: 'Tracking requests', section: 'tracking-requests' },
  { href: '#/import', label: 'Import', section: 'import' },
  { href: '#/webhooks', label: 'Webhooks', section: 'webhooks' },
  { href: '#/alerts', label: 'Alerts', section: 'alerts' },
  { href: '#/documents', label: 'Documents', section: 'documents' },
];

function parseHash(hash) {
  const [path, query = ''] = hash.replace(/^#\/?/, '').split('?');
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  return { parts, params: new URLSearchParams(query) };
}

function useHash() {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const on = () => setHash(location.hash);
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return hash;
}

function Page({ route, api }) {
  const [section, id] = route.parts;
  if (section === 'shipments' && id) return html`<${ShipmentDetail} api=${api} id=${id} />`;
  if (section === 'tracking-requests') return html`<${TrackingRequests} api=${api} params=${route.params} />`;
  if (section === 'import') return html`<${Import} api=${api} />`;
  if (section === 'webhooks') return html`<${Webhooks} api=${api} />`;
  if (section === 'alerts') return html`<${Alerts} api=${api} />`;
  if (section === 'documents')
    return id
      ? html`<${DocumentDetail} api=${api} id=${id} />`
      : html`<${Documents} api=${api} params=${route.params} />`;
  return html`<${Shipments} api=${api} params=${route.params} />`;
}

function App() {
  const [key, setKey] = useState(savedKey());
  const [expired, setExpired] = useState(null);
  const hash = useHash();
  const route = parseHash(hash);
  const mainRef = useRef(null);
  const api = useMemo(
    () =>
      key
        ? createApi(key, (message) => {
            forgetKey();
            setKey(null);
            setExpired(message);
          })
        : null,
    [key],
  );

  // Keyboard and screen-reader users land on the new page's heading after navigating.
  useEffect(() => {
    const h1 = mainRef.current?.querySelector('h1');
    if (h1 && document.activeElement?.tagName !== 'INPUT') h1.focus();
  }, [hash, key]);

  if (!api) {
    return html`<main id="main" ref=${mainRef}>
      <${SignIn}
        notice=${expired}
        onSignedIn=${(k) => {
          saveKey(k);
          setExpired(null);
          setKey(k);
          if (!location.hash) location.hash = '#/shipments';
        }}
      />
    </main>`;
  }

  const current = route.parts[0] || 'shipments';
  return html`
    <a class="skip" href="#main" onClick=${(e) => {
      e.preventDefault();
      mainRef.current?.querySelector('h1')?.focus();
    }}>Skip to content</a>
    <header class="top">
      <span class="brand">Tracker</span>
      <nav aria-label="Main">
        <ul>
          ${NAV.map(
            (n) =>
              html`<li><a href=${n.href} aria-current=${current === n.section ? 'page' : undefined}>${n.label}</a></li>`,
          )}
        </ul>
      </nav>
      <button
        type="button"
        onClick=${() => {
          forgetKey();
          setKey(null);
        }}
      >
        Sign out
      </button>
    </header>
    <main id="main" ref=${mainRef}>
      <${Page} key=${hash} route=${route} api=${api} />
    </main>
  `;
}

const root = document.getElementById('app');
root.textContent = '';
render(html`<${App} />`, root);
