import {
  BinaryOperationNode,
  FunctionNode,
  type KyselyPlugin,
  type OperationNode,
  OperationNodeTransformer,
  OperatorNode,
  PrimitiveValueListNode,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
  ValueListNode,
  ValueNode,
} from 'kysely';

// `x in ($1, $2, …)` is a different SQL text for every length of the list: on PostgreSQL each text
// is a statement of its own to parse and plan, and a statement name to keep per connection if it
// is prepared. So every list of plain values becomes one array parameter, `x = any($1)` (`not in`:
// `x <> all($1)`), one text whatever the length. The array goes as its text form ('{"a","b"}'):
// PostgreSQL gives the parameter the type of `x`'s array, and the drivers (pg, PGlite) pass a string
// as it is, where PGlite cannot serialise an array of an enum. A list holding anything else (a
// subquery, a tuple, a JSON value, a raw expression) stays as it is.

/** The list's values, when every one is a plain value (string, number, bigint, boolean, Date, null). */
function plainValues(node: OperationNode): unknown[] | null {
  let values: readonly unknown[];
  if (PrimitiveValueListNode.is(node)) values = node.values;
  else if (ValueListNode.is(node)) {
    if (!node.values.every((v) => ValueNode.is(v) && !v.immediate)) return null;
    values = node.values.map((v) => (v as ValueNode).value);
  } else return null;
  return values.every(
    (v) => v === null || v instanceof Date || ['string', 'number', 'bigint', 'boolean'].includes(typeof v),
  )
    ? [...values]
    : null;
}

/** PostgreSQL's text form of a one-dimensional array of plain values (every element quoted). */
export function arrayLiteral(values: readonly unknown[]): string {
  const element = (v: unknown) => {
    if (v === null) return 'NULL';
    const text = v instanceof Date ? v.toISOString() : typeof v === 'boolean' ? (v ? 't' : 'f') : String(v);
    return `"${text.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;
  };
  return `{${values.map(element).join(',')}}`;
}

const AS_ARRAY: Record<string, [operator: '=' | '<>', quantifier: string]> = {
  in: ['=', 'any'],
  'not in': ['<>', 'all'],
};

class ListsAsArrays extends OperationNodeTransformer {
  protected override transformBinaryOperation(node: BinaryOperationNode): BinaryOperationNode {
    const transformed = super.transformBinaryOperation(node);
    const as = OperatorNode.is(transformed.operator) ? AS_ARRAY[transformed.operator.operator] : undefined;
    const values = as ? plainValues(transformed.rightOperand) : null;
    if (!as || !values) return transformed;
    return BinaryOperationNode.create(
      transformed.leftOperand,
      OperatorNode.create(as[0]),
      FunctionNode.create(as[1], [ValueNode.create(arrayLiteral(values))]),
    );
  }
}

/** The Kysely plugin that sends `in` lists as one array parameter (see above). */
export function listsAsArrays(): KyselyPlugin {
  const transformer = new ListsAsArrays();
  return {
    transformQuery: (args: { node: RootOperationNode }) => transformer.transformNode(args.node),
    transformResult: async (args: { result: QueryResult<UnknownRow> }) => args.result,
  };
}
