// The terminal port is defined by the engine (src/engine/terminal.ts), which adapters implement;
// re-exported here for the adapters and the rest of the product.

export type {
  TerminalAdapter,
  TerminalDirectory,
  TerminalFee,
  TerminalHold,
  TerminalQuery,
  TerminalResult,
  TerminalStatus,
} from '../engine/terminal.ts';
