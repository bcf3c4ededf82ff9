/** A deterministic pseudo-random vector per seed (components in [-0.5, 0.5)), for vector store tests. */
export function seededVector(seed: number, dimensions: number): number[] {
  let state = seed * 2654435761 + 1;
  return Array.from({ length: dimensions }, () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648 - 0.5;
  });
}
