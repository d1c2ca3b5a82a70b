/** Rate-limit buckets: each has its own per-account limit (RATE_LIMIT_*_PER_MINUTE). */
export type Bucket = 'create' | 'default' | 'infer' | 'refresh';
