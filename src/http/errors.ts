// Moved to src/errors.ts (neutral of HTTP, so services can raise catalogue errors); this re-export
// keeps existing imports working until they are switched.
export * from '../errors.ts';
