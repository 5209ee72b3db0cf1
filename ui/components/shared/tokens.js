// Moving over a row of n tokens with ← / →: the cursor one step on, kept inside the row; from no cursor
// (null or undefined), → starts at the first token and ← at the last.
export function stepCursor(cursor, n, step) {
  const cur = cursor === null || cursor === undefined ? (step > 0 ? -1 : n) : cursor;
  return Math.max(0, Math.min(n - 1, cur + step));
}
