// The simulator's scenario library as the product sees it: the one module of sim/ that code
// under src/ may import (the sandbox carrier, src/carriers/sandbox.ts, answers from it
// in-process). Everything else in sim/ is the simulator program's own business.

export { FLAKY_RETRY_AFTER_SECONDS, type FlakyOutcome, flakyOutcome } from './flaky.ts';
export {
  type DcsaEvent,
  limitJourneyCache,
  lookupNumber,
  type NumberType,
  type ScenarioAnswer,
  scenarioTable,
  TEST_NUMBERS,
} from './scenarios.ts';
export type { TerminalFeedAnswer } from './terminal-feed.ts';
export { lookupTerminal } from './terminal-lookup.ts';
