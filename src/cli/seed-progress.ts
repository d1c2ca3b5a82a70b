// Progress of a bulk seed (seed.ts): what is reported after each batch, and a bar for stderr.

export interface SeedProgress {
  shipments: number;
  totalShipments: number;
  /** Rows written so far (shipments, tracking requests, containers, events). */
  rows: number;
  totalRows: number;
  elapsedMs: number;
  /** Estimated time left, from the rate so far. */
  etaMs: number;
  rowsPerSecond: number;
}

const duration = (ms: number) => {
  const s = Math.round(ms / 1000);
  return s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s` : `${s}s`;
};

/** A progress bar with the time left, for stderr (redrawn in place on a terminal). */
export function stderrProgress(stream: NodeJS.WriteStream = process.stderr): (p: SeedProgress) => void {
  let lastLine = 0;
  return (p) => {
    const share = p.rows / Math.max(1, p.totalRows);
    const width = 30;
    const bar = '#'.repeat(Math.round(share * width)).padEnd(width, '.');
    const line =
      `[${bar}] ${(share * 100).toFixed(0).padStart(3)}% ${p.shipments.toLocaleString('en')}/` +
      `${p.totalShipments.toLocaleString('en')} shipments, ${p.rows.toLocaleString('en')} rows, ` +
      `${Math.round(p.rowsPerSecond).toLocaleString('en')} rows/s, ${duration(p.etaMs)} left`;
    if (stream.isTTY) stream.write(`\r${line}${p.shipments === p.totalShipments ? '\n' : ''}`);
    else if (p.shipments === p.totalShipments || p.elapsedMs - lastLine >= 5000) {
      lastLine = p.elapsedMs;
      stream.write(`${line}\n`);
    }
  };
}
