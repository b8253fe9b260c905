/**
 * A source map (version 3, the bundle's: no index maps) decoded for lookups: where a generated
 * position (0-based line and column, as V8's profiler gives them) comes from.
 */
export type SourceMapLookup = (
  line: number,
  column: number,
) => { source: string; line: number } | null;

interface RawSourceMap {
  sources: string[];
  mappings: string;
}

const BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const DIGIT = new Map([...BASE64].map((c, i) => [c, i]));

/** The base64 VLQ numbers of one segment. */
function decodeSegment(segment: string): number[] {
  const values: number[] = [];
  let value = 0;
  let shift = 0;
  for (const char of segment) {
    const digit = DIGIT.get(char);
    if (digit === undefined) throw new Error(`bad source map character ${char}`);
    value += (digit & 31) << shift;
    if (digit & 32) {
      shift += 5;
    } else {
      values.push(value & 1 ? -(value >>> 1) : value >>> 1);
      value = 0;
      shift = 0;
    }
  }
  return values;
}

export function decodeSourceMap(map: RawSourceMap): SourceMapLookup {
  // Per generated line: the segments' generated columns, sources and original lines, in order.
  const lines: { columns: number[]; sources: number[]; originals: number[] }[] = [];
  let source = 0;
  let originalLine = 0;
  for (const text of map.mappings.split(";")) {
    const line = { columns: [] as number[], sources: [] as number[], originals: [] as number[] };
    let column = 0;
    if (text) {
      for (const segment of text.split(",")) {
        const v = decodeSegment(segment);
        column += v[0]!;
        if (v.length < 4) continue;
        source += v[1]!;
        originalLine += v[2]!;
        line.columns.push(column);
        line.sources.push(source);
        line.originals.push(originalLine);
      }
    }
    lines.push(line);
  }
  return (lineNumber, columnNumber) => {
    const line = lines[lineNumber];
    if (!line || line.columns.length === 0) return null;
    // The last segment at or before the column.
    let lo = 0;
    let hi = line.columns.length - 1;
    if (line.columns[0]! > columnNumber) return null;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (line.columns[mid]! <= columnNumber) lo = mid;
      else hi = mid - 1;
    }
    return { source: map.sources[line.sources[lo]!] ?? "?", line: line.originals[lo]! };
  };
}
