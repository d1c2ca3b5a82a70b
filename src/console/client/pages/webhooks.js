import { useEffect, useState } from 'preact/hooks';
import { qs } from '../api.js';
import { EventPicker } from '../event-picker.js';
import { ErrorBox, formatTime, html, humanize, TableHead, TableWrap } from '../ui.js';

const TONE = { succeeded: 'ok', failed: 'bad', pending: 'info' };

function WebhookForm({ api, categories, webhook, onSaved, onCancel }) {
  const editing = Boolean(webhook);
  const a = webhook?.attributes;
  const [url, setUrl] = useState(a?.url ?? '');
  const [events, setEvents] = useState(editing ? a.events : []);
  const [description, setDescription] = useState(a?.description ?? '');
  const [active, setActive] = useState(a?.active ?? true);
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const prefix = editing ? `wh-${webhook.id}` : 'wh-new';
  const all = categories.flatMap((c) => c.attributes.events.map((e) => e.name));

  async function submit(e) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    const attributes = { url: url.trim(), description: description.trim() || null };
    // On edit the API needs a list: none checked means all of them, as on create.
    if (events.length) attributes.events = events;
    else if (editing) attributes.events = all;
    if (editing) attributes.active = active;
    try {
      const body = { data: { type: 'webhook', attributes } };
      const doc = editing
        ? await api.patch(`/webhooks/${webhook.id}`, body)
        : await api.post('/webhooks', body);
      onSaved(doc.data, editing);
      if (!editing) {
        setUrl('');
        setEvents([]);
        setDescription('');
      }
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  return html`<form onSubmit=${submit} class=${editing ? '' : 'panel'} aria-label=${editing ? 'Edit webhook' : 'New webhook'}>
    ${editing ? null : html`<h2>New webhook</h2>`}
    <div class="field">
      <label for=${`${prefix}-url`}>URL</label>
      <input id=${`${prefix}-url`} type="url" required size="50" value=${url} onInput=${(e) => setUrl(e.currentTarget.value)} />
    </div>
    <div class="field">
      <label for=${`${prefix}-description`}>Description</label>
      <input id=${`${prefix}-description`} size="50" value=${description} onInput=${(e) => setDescription(e.currentTarget.value)} />
    </div>
    ${
      editing
        ? html`<div class="field">
          <label><input type="checkbox" checked=${active} onChange=${(e) => setActive(e.currentTarget.checked)} /> Active</label>
        </div>`
        : null
    }
    <${EventPicker} categories=${categories} selected=${events} onChange=${setEvents} idPrefix=${prefix}
      hint="none checked: every event" />
    <${ErrorBox} error=${error} />
    <div class="actions">
      <button type="submit" disabled=${busy}>${editing ? 'Save' : 'Create webhook'}</button>
      ${onCancel ? html`<button class="secondary" type="button" onClick=${onCancel}>Cancel</button>` : null}
    </div>
  </form>`;
}

function Notifications({ api, webhook }) {
  const [doc, setDoc] = useState(null);
  const [error, setError] = useState(null);
  const [message, setMessage] = useState(null);
  const load = () =>
    api
      .get(`/webhook_notifications${qs({ 'filter[webhook_id]': webhook.id, 'page[size]': 25 })}`)
      .then(setDoc, setError);
  useEffect(() => {
    load();
  }, [webhook.id]);

  async function redeliver(n) {
    setError(null);
    try {
      await api.post(`/webhook_notifications/${n.id}/redeliver`);
      setMessage(`Notification ${n.attributes.event} queued for redelivery.`);
      await load();
    } catch (err) {
      setError(err);
    }
  }

  if (!doc)
    return error ? html`<${ErrorBox} error=${error} />` : html`<p class="loading">Loading notifications…</p>`;
  return html`<div>
    <h3>Notifications</h3>
    ${message ? html`<div class="notice" role="status">${message}</div>` : null}
    <${ErrorBox} error=${error} />
    ${
      doc.data.length === 0
        ? html`<p>No notifications yet.</p>`
        : html`<${TableWrap} label=${`Notifications of ${webhook.attributes.url}`}>
          <table>
            <${TableHead} columns=${['Event', 'Created', 'Delivery', 'Attempts', 'Last answer', html`<span class="skip">Action</span>`]} />
            <tbody>
              ${doc.data.map((n) => {
                const a = n.attributes;
                const last = a.attempts.at(-1);
                return html`<tr key=${n.id}>
                  <td class="mono">${a.event}</td>
                  <td>${formatTime(a.created_at)}</td>
                  <td><span class=${`badge ${TONE[a.delivery_status] ?? ''}`}>${humanize(a.delivery_status)}</span></td>
                  <td>${a.attempts.length}</td>
                  <td>${last ? (last.status_code ?? last.error ?? '—') : '—'}</td>
                  <td><button class="secondary" type="button" onClick=${() => redeliver(n)}>Redeliver</button></td>
                </tr>`;
              })}
            </tbody>
          </table>
        </${TableWrap}>`
    }
  </div>`;
}

function WebhookCard({ api, categories, webhook, onChanged }) {
  const [editing, setEditing] = useState(false);
  const [showing, setShowing] = useState(false);
  const [revealed, setRevealed] = useState(false);
  const [error, setError] = useState(null);
  const [notice, setNotice] = useState(null);
  const a = webhook.attributes;
  const total = categories.reduce((n, c) => n + c.attributes.events.length, 0);

  async function rotate() {
    setError(null);
    try {
      const doc = await api.patch(`/webhooks/${webhook.id}`, {
        data: { type: 'webhook', attributes: { rotate_secret: true } },
      });
      setRevealed(true);
      const until = doc.data.attributes.previous_secret_expires_at;
      setNotice(
        `New secret issued.${until ? ` The previous one also signs until ${formatTime(until)}.` : ''}`,
      );
      onChanged(doc.data);
    } catch (err) {
      setError(err);
    }
  }

  return html`<article class="card" aria-label=${`Webhook ${a.url}`}>
    <div class="url">${a.url}</div>
    <div>
      <span class=${`badge ${a.active ? 'ok' : 'bad'}`}>${a.active ? 'Active' : 'Inactive'}</span>
      ${a.deactivation_reason ? html` <span class="hint">deactivated: ${humanize(a.deactivation_reason)}</span>` : null}
      <span class="hint"> · ${a.events.length >= total ? 'All events' : `${a.events.length} events`}</span>
      ${a.description ? html`<span class="hint"> · ${a.description}</span>` : null}
    </div>
    <div class="hint">
      Secret: <span class="mono">${revealed ? a.secret : '••••••••'}</span>
      <button class="secondary inline" type="button" onClick=${() => setRevealed(!revealed)}>${revealed ? 'Hide' : 'Show'} secret</button>
    </div>
    ${notice ? html`<div class="notice" role="status">${notice}</div>` : null}
    <${ErrorBox} error=${error} />
    <div class="actions">
      <button class="secondary" type="button" aria-expanded=${editing} onClick=${() => setEditing(!editing)}>Edit</button>
      <button class="secondary" type="button" onClick=${rotate}>Rotate secret</button>
      <button class="secondary" type="button" aria-expanded=${showing} onClick=${() => setShowing(!showing)}>
        ${showing ? 'Hide notifications' : 'Notifications'}
      </button>
    </div>
    ${
      editing
        ? html`<${WebhookForm}
          api=${api}
          categories=${categories}
          webhook=${webhook}
          onSaved=${(w) => {
            setEditing(false);
            setNotice('Saved.');
            onChanged(w);
          }}
          onCancel=${() => setEditing(false)}
        />`
        : null
    }
    ${showing ? html`<${Notifications} api=${api} webhook=${webhook} />` : null}
  </article>`;
}

export function Webhooks({ api }) {
  const [webhooks, setWebhooks] = useState(null);
  const [categories, setCategories] = useState([]);
  const [error, setError] = useState(null);
  const [created, setCreated] = useState(null);

  useEffect(() => {
    api.get('/webhooks?page[size]=100').then((d) => setWebhooks(d.data), setError);
    api.get('/webhooks/events').then((d) => setCategories(d.data), setError);
  }, []);

  const replace = (w) => setWebhooks((list) => list.map((x) => (x.id === w.id ? w : x)));
  return html`<section>
    <h1 tabindex="-1">Webhooks</h1>
    <${WebhookForm}
      api=${api}
      categories=${categories}
      onSaved=${(w) => {
        setCreated(w);
        setWebhooks((list) => [w, ...(list ?? [])]);
      }}
    />
    ${
      created
        ? html`<div class="notice" role="status">
          Webhook created. Its signing secret: <span class="mono">${created.attributes.secret}</span>
        </div>`
        : null
    }
    <${ErrorBox} error=${error} />
    <h2>Your webhooks</h2>
    ${webhooks === null && !error ? html`<p class="loading">Loading webhooks…</p>` : null}
    ${webhooks?.length === 0 ? html`<p>No webhooks yet.</p>` : null}
    <div class="cards">
      ${(webhooks ?? []).map(
        (w) =>
          html`<${WebhookCard} key=${w.id} api=${api} categories=${categories} webhook=${w} onChanged=${replace} />`,
      )}
    </div>
  </section>`;
}
