/**
 * **The** filter stage of the events pipeline, the same for every source: `--type` (and whatever filter comes later).
 * An item it refuses moves the position only. Undefined: no filter, every item passes.
 */
export function typeFilter<E>(
  types: readonly string[],
  typeOf: (event: E) => string,
): ((event: E) => boolean) | undefined {
  if (types.length === 0) return undefined;
  const wanted = new Set(types);
  return (event) => wanted.has(typeOf(event));
}
