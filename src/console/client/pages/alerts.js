// The Alerts page: the account's e-mail alert rules (/v2/alert_rules, docs/alerts.md). Create, edit
// and delete them; the API checks every rule, and each of its 422 errors is shown next to the field
// its source.pointer names, so the page repeats none of the rules.
import { useEffect, useState } from 'preact/hooks';
import { EventPicker } from '../event-picker.js';
import { ErrorBox, formatTime, html } from '../ui.js';

const ATTRS = '/data/attributes/';

/** The form field an error points at: events/2 → events, filter/custom_fields/x → custom_fields. */
function fieldOf(error) {
  const p = error.source?.pointer ?? '';
  if (!p.startsWith(ATTRS)) return null;
  const [first, second] = p.slice(ATTRS.length).split('/');
  return first === 'filter' ? (second ?? 'tags') : first;
}

/** The API's errors by field; those that name no field of the form go to the form's own box. */
function splitErrors(err) {
  const byField = {};
  const rest = [];
  for (const e of err?.errors ?? []) {
    const f = fieldOf(e);
    const message = e.detail ?? e.title;
    if (f) byField[f] = [...(byField[f] ?? []), message];
    else rest.push(message);
  }
  const general = err && (rest.length || !err.errors?.length) ? rest.join(' ') || err.message : null;
  return { byField, general };
}

function FieldError({ id, messages }) {
  if (!messages?.length) return null;
  return html`<div class="field-error" id=${id}>${messages.map((m) => html`<div key=${m}>${m}</div>`)}</div>`;
}

const splitList = (s) =>
  s
    .split(/[\s,;]+/)
    .map((x) => x.trim())
    .filter(Boolean);

/** `slug=value` lines; true, false and numbers as such (a custom field's value keeps its type). */
function parseCustomFields(text) {
  const out = {};
  for (const line of text.split('\n')) {
    const at = line.indexOf('=');
    if (at < 1) continue;
    const raw = line.slice(at + 1).trim();
    out[line.slice(0, at).trim()] = /^(true|false|-?\d+(\.\d+)?)$/.test(raw) ? JSON.parse(raw) : raw;
  }
  return out;
}

const customFieldsText = (cf) =>
  Object.entries(cf ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .join('\n');

const browserZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
const ZONES = (() => {
  try {
    return ['UTC', ...Intl.supportedValuesOf('timeZone').filter((z) => z !== 'UTC')];
  } catch {
    return ['UTC'];
  }
})();

function RuleForm({ api, categories, rule, onSaved, onCancel }) {
  const editing = Boolean(rule);
  const a = rule?.attributes;
  const prefix = editing ? `ar-${rule.id}` : 'ar-new';
  const [events, setEvents] = useState(a?.events ?? []);
  const [recipients, setRecipients] = useState(a?.recipients.join('\n') ?? '');
  const [schedule, setSchedule] = useState(a?.schedule ?? 'immediate');
  const [dailyAt, setDailyAt] = useState(a?.daily_at ?? '08:00');
  const [timeZone, setTimeZone] = useState(a?.time_zone ?? browserZone());
  const [tags, setTags] = useState(a?.filter.tags.join(', ') ?? '');
  const [customFields, setCustomFields] = useState(customFieldsText(a?.filter.custom_fields));
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const { byField, general } = splitErrors(error);
  const id = (name) => `${prefix}-${name}`;
  const invalid = (name) =>
    byField[name] ? { 'aria-invalid': 'true', 'aria-describedby': id(`${name}-error`) } : {};

  async function submit(e) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    const attributes = {
      events,
      recipients: splitList(recipients),
      schedule,
      daily_at: schedule === 'daily' ? dailyAt || null : null,
      time_zone: timeZone.trim() || 'UTC',
      filter: {
        tags: [...new Set(splitList(tags))],
        custom_fields: parseCustomFields(customFields),
      },
    };
    try {
      const body = { data: { type: 'alert_rule', attributes } };
      const doc = editing
        ? await api.patch(`/alert_rules/${rule.id}`, body)
        : await api.post('/alert_rules', body);
      onSaved(doc, editing);
      if (!editing) {
        setEvents([]);
        setRecipients('');
        setTags('');
        setCustomFields('');
      }
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  return html`<form onSubmit=${submit} class=${editing ? '' : 'panel'} aria-label=${editing ? 'Edit alert rule' : 'New alert rule'} noValidate>
    ${editing ? null : html`<h2>New alert rule</h2>`}
    <div class="field">
      <label for=${id('recipients')}>Recipients</label>
      <textarea id=${id('recipients')} rows="3" cols="50" placeholder="ops@example.com" value=${recipients}
        onInput=${(e) => setRecipients(e.currentTarget.value)} ...${invalid('recipients')} />
      <div class="hint">E-mail addresses, one per line or separated by commas.</div>
      <${FieldError} id=${id('recipients-error')} messages=${byField.recipients} />
    </div>
    <div class="row">
      <div class="field">
        <label for=${id('schedule')}>Schedule</label>
        <select id=${id('schedule')} value=${schedule} onChange=${(e) => setSchedule(e.currentTarget.value)}>
          <option value="immediate">Immediately, one e-mail per event</option>
          <option value="daily">Daily digest</option>
        </select>
        <${FieldError} id=${id('schedule-error')} messages=${byField.schedule} />
      </div>
      ${
        schedule === 'daily'
          ? html`<div class="field">
            <label for=${id('daily_at')}>At (HH:MM)</label>
            <input id=${id('daily_at')} type="time" value=${dailyAt} onInput=${(e) => setDailyAt(e.currentTarget.value)} ...${invalid('daily_at')} />
            <${FieldError} id=${id('daily_at-error')} messages=${byField.daily_at} />
          </div>`
          : null
      }
      <div class="field">
        <label for=${id('time_zone')}>Time zone</label>
        <input id=${id('time_zone')} list=${id('zones')} size="24" value=${timeZone}
          onInput=${(e) => setTimeZone(e.currentTarget.value)} ...${invalid('time_zone')} />
        <datalist id=${id('zones')}>${ZONES.map((z) => html`<option key=${z} value=${z} />`)}</datalist>
        <${FieldError} id=${id('time_zone-error')} messages=${byField.time_zone} />
      </div>
    </div>
    <${EventPicker} categories=${categories} selected=${events} onChange=${setEvents} idPrefix=${prefix}
      hint=${`${events.length} chosen`} errorId=${id('events-error')} invalid=${Boolean(byField.events)} />
    <${FieldError} id=${id('events-error')} messages=${byField.events} />
    <div class="row">
      <div class="field">
        <label for=${id('tags')}>Only shipments tagged</label>
        <input id=${id('tags')} size="30" placeholder="any tag" value=${tags} onInput=${(e) => setTags(e.currentTarget.value)} ...${invalid('tags')} />
        <${FieldError} id=${id('tags-error')} messages=${byField.tags} />
      </div>
      <div class="field">
        <label for=${id('custom_fields')}>Only shipments whose custom fields hold</label>
        <textarea id=${id('custom_fields')} rows="2" cols="30" placeholder="api_slug=value" value=${customFields}
          onInput=${(e) => setCustomFields(e.currentTarget.value)} ...${invalid('custom_fields')} />
        <${FieldError} id=${id('custom_fields-error')} messages=${byField.custom_fields} />
      </div>
    </div>
    ${general ? html`<${ErrorBox} error=${{ message: general }} />` : null}
    <div class="actions">
      <button type="submit" disabled=${busy}>${editing ? 'Save' : 'Create alert rule'}</button>
      ${onCancel ? html`<button class="secondary" type="button" onClick=${onCancel}>Cancel</button>` : null}
    </div>
  </form>`;
}

function whenText(a) {
  if (a.schedule !== 'daily') return 'Immediately';
  const next = a.next_digest_at ? ` · next ${formatTime(a.next_digest_at, a.time_zone)}` : '';
  return `Daily at ${a.daily_at} (${a.time_zone})${next}`;
}

function filterText(f) {
  const parts = [];
  if (f.tags.length) parts.push(`tagged ${f.tags.join(' or ')}`);
  for (const [k, v] of Object.entries(f.custom_fields)) parts.push(`${k} = ${v}`);
  return parts.length ? `Shipments ${parts.join(', ')}` : 'Every shipment';
}

function RuleCard({ api, categories, rule, onChanged, onDeleted }) {
  const [editing, setEditing] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState(null);
  const [notice, setNotice] = useState(null);
  const a = rule.attributes;
  const label = `Alert rule for ${a.recipients.join(', ') || 'no one'}`;

  async function remove() {
    setError(null);
    try {
      await api.del(`/alert_rules/${rule.id}`);
      onDeleted(rule.id);
    } catch (err) {
      setError(err);
    }
  }

  return html`<article class="card" aria-label=${label}>
    <div class="url">${a.recipients.length ? a.recipients.join(', ') : html`<span class="hint">No recipients left</span>`}</div>
    <div class="hint">${whenText(a)} · ${filterText(a.filter)}</div>
    <div class="hint">
      ${`${a.events.length} event${a.events.length === 1 ? '' : 's'}: `}${a.events.map((e, i) => html`${i ? ', ' : ''}<span class="mono" key=${e}>${e}</span>`)}
    </div>
    ${notice ? html`<div class="notice" role="status">${notice}</div>` : null}
    <${ErrorBox} error=${error} />
    <div class="actions">
      <button class="secondary" type="button" aria-expanded=${editing} onClick=${() => setEditing(!editing)}>Edit</button>
      ${
        confirming
          ? html`<span>Delete this rule?</span>
            <button type="button" onClick=${remove}>Delete rule</button>
            <button class="secondary" type="button" onClick=${() => setConfirming(false)}>Keep it</button>`
          : html`<button class="secondary" type="button" onClick=${() => setConfirming(true)}>Delete</button>`
      }
    </div>
    ${
      editing
        ? html`<${RuleForm}
          api=${api}
          categories=${categories}
          rule=${rule}
          onSaved=${(doc) => {
            setEditing(false);
            setNotice('Saved.');
            onChanged(doc.data);
          }}
          onCancel=${() => setEditing(false)}
        />`
        : null
    }
  </article>`;
}

export function Alerts({ api }) {
  const [rules, setRules] = useState(null);
  const [delivery, setDelivery] = useState(null);
  const [categories, setCategories] = useState([]);
  const [error, setError] = useState(null);
  const [notice, setNotice] = useState(null);

  useEffect(() => {
    api.get('/alert_rules?page[size]=100').then((d) => {
      setRules(d.data);
      setDelivery(d.meta.email_delivery);
    }, setError);
    api.get('/webhooks/events').then((d) => setCategories(d.data), setError);
  }, []);

  const replace = (r) => setRules((list) => list.map((x) => (x.id === r.id ? r : x)));
  return html`<section>
    <h1 tabindex="-1">Alerts</h1>
    <p class="hint">
      E-mails about the events you choose, at once or as a daily digest; every e-mail has an unsubscribe link.
    </p>
    ${
      delivery === 'disabled'
        ? html`<div class="alert" role="note">
          E-mail delivery is off on this server (SMTP_OUT_URL is not set): rules are kept, nothing is sent.
        </div>`
        : null
    }
    <${RuleForm}
      api=${api}
      categories=${categories}
      onSaved=${(doc) => {
        setNotice('Alert rule created.');
        setDelivery(doc.meta.email_delivery);
        setRules((list) => [doc.data, ...(list ?? [])]);
      }}
    />
    ${notice ? html`<div class="notice" role="status">${notice}</div>` : null}
    <${ErrorBox} error=${error} />
    <h2>Your alert rules</h2>
    ${rules === null && !error ? html`<p class="loading">Loading alert rules…</p>` : null}
    ${rules?.length === 0 ? html`<p>No alert rules yet.</p>` : null}
    <div class="cards">
      ${(rules ?? []).map(
        (r) =>
          html`<${RuleCard}
            key=${r.id}
            api=${api}
            categories=${categories}
            rule=${r}
            onChanged=${replace}
            onDeleted=${(id) => {
              setNotice('Alert rule deleted.');
              setRules((list) => list.filter((x) => x.id !== id));
            }}
          />`,
      )}
    </div>
  </section>`;
}
