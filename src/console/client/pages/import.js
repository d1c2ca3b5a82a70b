import { useState } from 'preact/hooks';
import { qs } from '../api.js';
import { ErrorBox, html, TableHead, TableWrap } from '../ui.js';

// #/import: a spreadsheet of numbers made into tracking requests. The CSV (pasted, or read from a
// chosen file into the same box so it can be checked first) goes to POST /v2/tracking_requests/import
// as it is; the server answers one result per row, shown here next to the row it came from.

const EXAMPLE =
  'request_number,scac,request_type,ref_numbers,tags\nMAEU123456789,MAEU,bill_of_lading,PO-1;PO-2,import\n';

/** The attribute an error is about ("/data/attributes/ref_numbers/1" → "ref_numbers"). */
const attributeOf = (e) => e.source?.pointer?.split('/')[3] ?? null;

function Outcome({ result, created }) {
  if (result.status === 'created') {
    const number = created?.attributes.request_number;
    return html`<span class="badge ok">Created</span>
      ${' '}
      <a href=${`#/tracking-requests${qs({ number })}`}>Tracking request ${number}</a>`;
  }
  return html`<span class="badge bad">Not imported</span>
    <ul class="row-errors">
      ${result.errors.map(
        (e) => html`<li>
          ${attributeOf(e) ? html`<span class="mono">${attributeOf(e)}</span>: ` : null}${e.detail ?? e.title}
          ${' '}<span class="hint">(${e.code})</span>
        </li>`,
      )}
    </ul>`;
}

export function Import({ api }) {
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(null);
  const [answer, setAnswer] = useState(null);

  async function submit(e) {
    e.preventDefault();
    if (!text.trim()) return setError(new Error('Paste a CSV or choose a file first.'));
    setBusy(true);
    setError(null);
    setAnswer(null);
    try {
      const doc = await api.postCsv('/tracking_requests/import', text);
      setAnswer({ doc, lines: text.replace(/^\uFEFF/, '').split(/\r?\n/) });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  async function choose(e) {
    const file = e.currentTarget.files?.[0];
    if (file) setText(await file.text());
  }

  const byId = new Map((answer?.doc.data ?? []).map((tr) => [tr.id, tr]));
  const meta = answer?.doc.meta;
  return html`<section>
    <h1 tabindex="-1">Import tracking requests</h1>
    <form class="panel" onSubmit=${submit} aria-labelledby="import-h">
      <h2 id="import-h">A CSV of numbers</h2>
      <p class="hint">
        ${'Columns: '}<span class="mono">request_number</span>${' (required), '}<span class="mono">scac</span>${', '}
        <span class="mono">request_type</span>${', '}<span class="mono">ref_numbers</span>${' and '}
        <span class="mono">tags</span>${' (several separated by “;”). Without a SCAC the carrier is detected from the number; without a type, a valid container number is a container and anything else a bill of lading.'}
      </p>
      <div class="field">
        <label for="import-file">File</label>
        <input id="import-file" type="file" accept=".csv,text/csv" onChange=${choose} />
      </div>
      <div class="field">
        <label for="import-text">Or paste it here</label>
        <textarea
          id="import-text"
          rows="10"
          placeholder=${EXAMPLE}
          value=${text}
          onInput=${(e) => setText(e.currentTarget.value)}
        ></textarea>
      </div>
      <button type="submit" disabled=${busy}>${busy ? 'Importing…' : 'Import'}</button>
      <${ErrorBox} error=${error} />
    </form>
    ${
      meta
        ? html`<div class="notice" role="status">
            ${meta.rows} rows: ${meta.created} created, ${meta.failed} not imported.
          </div>
          <${TableWrap} label="Import results">
            <table>
              <${TableHead} columns=${['Line', 'Row', 'Outcome']} />
              <tbody>
                ${meta.results.map(
                  (r) => html`<tr key=${r.line} class=${r.status === 'created' ? 'created' : 'failed'}>
                    <td>${r.line}</td>
                    <td class="mono wrap">${answer.lines[r.line - 1] ?? ''}</td>
                    <td><${Outcome} result=${r} created=${byId.get(r.id)} /></td>
                  </tr>`,
                )}
              </tbody>
            </table>
          </${TableWrap}>`
        : null
    }
  </section>`;
}
