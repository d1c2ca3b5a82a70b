// fast-check, seeded: every property of the suite runs from a fixed seed so that a failure is
// reproduced by running the file again (fast-check also prints the seed and the shrunk path).
// FC_SEED=<n> explores other inputs.

import fc from 'fast-check';

export const FC_SEED = Number.parseInt(process.env.FC_SEED ?? '', 10) || 20_261_124;
fc.configureGlobal({ seed: FC_SEED });

export default fc;
