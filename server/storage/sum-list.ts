/** `SUM(col), ...` for a column list, for GROUP BY queries. */
export const sumList = (cols: readonly string[]): string => cols.map((c) => `SUM(${c})`).join(', ');
