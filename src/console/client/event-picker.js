import { html } from './ui.js';

/**
 * Event checkboxes by category, from the catalogue (GET /v2/webhooks/events): the webhook and
 * alert rule forms. `hint` follows the legend; `errorId` and `invalid` tie an API error to it.
 */
export function EventPicker({ categories, selected, onChange, idPrefix, hint, errorId, invalid }) {
  const toggle = (name, on) => onChange(on ? [...selected, name] : selected.filter((n) => n !== name));
  return html`<fieldset aria-describedby=${invalid ? errorId : undefined} aria-invalid=${invalid ? 'true' : undefined}>
    <legend>Events <span class="hint">(${hint})</span></legend>
    ${categories.map(
      (c) => html`<div key=${c.id}>
        <strong>${c.attributes.name}</strong>
        ${c.attributes.events.map(
          (e) => html`<label key=${e.name} title=${e.description}>
            <input
              type="checkbox"
              id=${`${idPrefix}-${e.name}`}
              checked=${selected.includes(e.name)}
              onChange=${(ev) => toggle(e.name, ev.currentTarget.checked)}
            />
            <span class="mono">${e.name}</span>
          </label>`,
        )}
      </div>`,
    )}
  </fieldset>`;
}
