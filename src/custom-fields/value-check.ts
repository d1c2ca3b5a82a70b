import { parseDateTime } from '../http/date-time.ts';
import type { DataType, Definition, Option } from './types.ts';

// Pure checks of a value against its definition (type, options, validation rules) and the
// display form of a value. Returns a problem sentence, or null when the value is acceptable.

const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;
const DEFAULT_MAX_TEXT = 255;

type Rules = Record<string, unknown>;
const num = (rules: Rules, key: string): number | undefined =>
  typeof rules[key] === 'number' ? (rules[key] as number) : undefined;

const CHECKS: Record<DataType, (v: unknown, rules: Rules, options: Option[]) => string | null> = {
  short_text(v, rules) {
    if (typeof v !== 'string') return 'must be a string';
    const max = num(rules, 'max_length') ?? DEFAULT_MAX_TEXT;
    const min = num(rules, 'min_length');
    if (v.length > max) return `must be at most ${max} characters`;
    if (min !== undefined && v.length < min) return `must be at least ${min} characters`;
    if (typeof rules.pattern === 'string') {
      let re: RegExp | null = null;
      try {
        re = new RegExp(rules.pattern);
      } catch {
        re = null;
      }
      if (re && !re.test(v)) return `must match ${rules.pattern}`;
    }
    return null;
  },
  number(v, rules) {
    if (typeof v !== 'number' || !Number.isFinite(v)) return 'must be a number';
    const min = num(rules, 'min');
    const max = num(rules, 'max');
    if (min !== undefined && v < min) return `must be at least ${min}`;
    if (max !== undefined && v > max) return `must be at most ${max}`;
    if (rules.integer === true && !Number.isInteger(v)) return 'must be a whole number';
    return null;
  },
  date(v) {
    return typeof v === 'string' && DATE_RE.test(v) && parseDateTime(v)
      ? null
      : 'must be a date (YYYY-MM-DD)';
  },
  datetime(v) {
    return typeof v === 'string' && parseDateTime(v, { requireTime: true })
      ? null
      : 'must be an ISO 8601 date-time with a zone';
  },
  boolean(v) {
    return typeof v === 'boolean' ? null : 'must be true or false';
  },
  enum(v, _rules, options) {
    if (typeof v !== 'string') return 'must be the value of one of its options';
    return options.some((o) => o.value === v) ? null : `'${v}' is not one of its options`;
  },
  enum_multi(v, _rules, options) {
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) return 'must be an array of option values';
    const bad = v.find((x) => !options.some((o) => o.value === x));
    if (bad !== undefined) return `'${bad}' is not one of its options`;
    if (new Set(v).size !== v.length) return 'must not repeat an option';
    return null;
  },
  reference(v) {
    return typeof v === 'string' && v.trim() !== '' && v.length <= 255
      ? null
      : 'must be a reference (a string)';
  },
};

/** Why `value` does not fit the definition, or null. A null value clears the field. */
export function checkValue(
  def: Pick<Definition, 'data_type' | 'validation'>,
  value: unknown,
  options: Option[],
) {
  if (value === null) {
    return def.validation?.required === true ? "can't be blank" : null;
  }
  if (value === undefined) return 'is required';
  return CHECKS[def.data_type](value, def.validation ?? {}, options);
}

/** The value as people read it: option labels for enums, Yes/No for booleans. */
export function displayValue(dataType: DataType, value: unknown, options: Option[]): string | null {
  if (value === null || value === undefined) return null;
  const label = (v: unknown) => options.find((o) => o.value === v)?.label ?? String(v);
  switch (dataType) {
    case 'boolean':
      return value ? 'Yes' : 'No';
    case 'enum':
      return label(value);
    case 'enum_multi':
      return Array.isArray(value) ? value.map(label).join(', ') : String(value);
    default:
      return typeof value === 'string' ? value : JSON.stringify(value);
  }
}
