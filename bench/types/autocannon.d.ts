// The parts of autocannon's programmatic API the load generator uses (the package ships no types).
declare module 'autocannon' {
  namespace autocannon {
    interface Options {
      url: string;
      connections?: number;
      pipelining?: number;
      timeout?: number;
      duration?: number;
      amount?: number;
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string;
      requests?: Array<Record<string, unknown>>;
    }
    interface Histogram {
      mean: number;
      max: number;
      p50: number;
      p90: number;
      p99: number;
    }
    interface Result {
      duration: number;
      latency: Histogram;
      requests: Histogram & { total: number };
      errors: number;
      timeouts: number;
      non2xx: number;
      statusCodeStats?: Record<string, { count: number }>;
    }
  }
  function autocannon(options: autocannon.Options): Promise<autocannon.Result>;
  export default autocannon;
}
