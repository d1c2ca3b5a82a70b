// The console's only way to the server: the public API at /v2 on this origin, authenticated with
// the key the user typed (kept in sessionStorage: a reload keeps it, closing the tab forgets it).

const STORAGE_KEY = 'tracker.apiKey';

export class ApiError extends Error {
  constructor(status, message, errors) {
    super(message);
    this.status = status;
    this.errors = errors ?? [];
  }
}

export const savedKey = () => sessionStorage.getItem(STORAGE_KEY);
export const saveKey = (key) => sessionStorage.setItem(STORAGE_KEY, key);
export const forgetKey = () => sessionStorage.removeItem(STORAGE_KEY);

/** A JSON:API caller bound to one key. `onUnauthorized` runs when the key stops working. */
export function createApi(key, onUnauthorized = () => {}) {
  async function call(method, path, body) {
    const headers = { Authorization: `Token ${key}`, Accept: 'application/vnd.api+json' };
    // A FormData body (a file upload) sets its own multipart Content-Type with the boundary.
    const form = body instanceof FormData;
    if (body !== undefined && !form) headers['Content-Type'] = 'application/vnd.api+json';
    let res;
    try {
      res = await fetch(`/v2${path}`, {
        method,
        headers,
        body: body === undefined || form ? body : JSON.stringify(body),
      });
    } catch {
      throw new ApiError(0, 'The server cannot be reached.');
    }
    if (res.status === 204) return null;
    return answer(res);
  }
  /** POST of a CSV (text/csv) body, answered with JSON:API: the import endpoint. */
  async function postCsv(path, text) {
    let res;
    try {
      res = await fetch(`/v2${path}`, {
        method: 'POST',
        headers: {
          Authorization: `Token ${key}`,
          Accept: 'application/vnd.api+json',
          'Content-Type': 'text/csv',
        },
        body: text,
      });
    } catch {
      throw new ApiError(0, 'The server cannot be reached.');
    }
    return answer(res);
  }

  async function answer(res) {
    const doc = await res.json().catch(() => null);
    if (!res.ok) {
      const errors = doc?.errors ?? [];
      const message =
        errors.map((e) => e.detail ?? e.title).join(' ') || `The server answered ${res.status}.`;
      if (res.status === 401) onUnauthorized(message);
      throw new ApiError(res.status, message, errors);
    }
    return doc;
  }

  /**
   * A list as CSV (`Accept: text/csv`, every page with the filters in force), saved as `filename`.
   * The key goes in a header, so a plain link cannot download it: the browser fetches the file
   * and hands it to the user as a Blob (the server streams it; the browser holds it until saved).
   */
  async function download(path, filename) {
    let res;
    try {
      res = await fetch(`/v2${path}`, { headers: { Authorization: `Token ${key}`, Accept: 'text/csv' } });
    } catch {
      throw new ApiError(0, 'The server cannot be reached.');
    }
    if (!res.ok) return answer(res);
    const url = URL.createObjectURL(await res.blob());
    const a = document.createElement('a');
    a.href = url;
    a.download = filename;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
  }

  return {
    postCsv,
    download,
    get: (path) => call('GET', path),
    post: (path, body) => call('POST', path, body ?? {}),
    patch: (path, body) => call('PATCH', path, body),
    del: (path) => call('DELETE', path),
    upload: (path, formData) => call('POST', path, formData),
  };
}

/** Query string from an object, skipping empty values. */
export function qs(params) {
  const s = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') s.set(k, v);
  const text = s.toString();
  return text ? `?${text}` : '';
}
