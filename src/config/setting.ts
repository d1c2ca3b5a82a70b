// One configuration variable: its type, default, meaning and validation, in one entry. The schema
// files (src/config/schema-*.ts) list the entries by area; src/config.ts reads them all from the
// environment, and docs/configuration.md and `npm run cli -- config` are printed from the same entries.
import type { Env, Readers } from './readers.ts';

export interface ReadContext {
  /** The variable's name (the entry's key in the schema). */
  name: string;
  env: Env;
  problems: string[];
  read: Readers;
}

export interface Setting<T = unknown> {
  /** What the value is, for people (e.g. `integer 0..65535`). */
  type: string;
  /** The default as shown in the table; `(unset)` or `(empty)` when there is none. */
  default: string;
  description: string;
  /** Reads and validates the variable; a bad value is recorded in `problems` and the default returned. */
  parse: (ctx: ReadContext) => T;
}

export type Schema = Record<string, Setting>;

/** The parsed values of a schema, by variable name. */
export type Values<S extends Schema> = { [K in keyof S]: ReturnType<S[K]['parse']> };

const MAX = Number.MAX_SAFE_INTEGER;

export function integer(
  def: number,
  description: string,
  opts: { min?: number; max?: number; label?: string } = {},
): Setting<number> {
  const { min = 0, max = MAX, label } = opts;
  return {
    type: max === MAX ? `integer ≥ ${min}` : `integer ${min}..${max}`,
    default: String(def),
    description,
    parse: ({ name, read }) => read.int(name, def, min, max, label ?? name),
  };
}

/** An integer that may be left unset (null). */
export function optionalInteger(min: number, max: number, description: string): Setting<number | null> {
  return {
    type: `integer ${min}..${max}`,
    default: '(unset)',
    description,
    parse: ({ name, read }) => read.optionalInt(name, min, max),
  };
}

export function text(def: string, description: string, type = 'string'): Setting<string> {
  return { type, default: def, description, parse: ({ name, read }) => read.str(name, def) };
}

export function boolean(def: boolean, description: string): Setting<boolean> {
  return {
    type: 'boolean',
    default: String(def),
    description,
    parse: ({ name, read }) => read.bool(name, def),
  };
}

export function oneOf<const T extends string>(
  def: T,
  values: readonly T[],
  description: string,
  label?: string,
): Setting<T> {
  return {
    type: values.join(' | '),
    default: def,
    description,
    parse: ({ name, read }) => read.oneOf(name, def, values, label ?? name),
  };
}

/** An entry whose reading needs more than one typed reader (lists, files, cross-checks of its own). */
export function custom<T>(
  type: string,
  def: string,
  description: string,
  parse: (ctx: ReadContext) => T,
): Setting<T> {
  return { type, default: def, description, parse };
}

/** Reads every entry of `schema` from `env`, in order, collecting problems. */
export function readSchema<S extends Schema>(
  schema: S,
  env: Env,
  problems: string[],
  read: Readers,
): Values<S> {
  const out: Record<string, unknown> = {};
  for (const [name, setting] of Object.entries(schema))
    out[name] = setting.parse({ name, env, problems, read });
  return out as Values<S>;
}
