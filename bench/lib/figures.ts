/**
 * Every figure a benchmark reports: a name, a value and its unit, the section it belongs to and the command
 * that produced it. The table and bench/results/latest.json are both made from this list.
 */

export interface Figure {
  section: string;
  name: string;
  value: number | string;
  unit: string;
  note?: string;
}

export class Figures {
  readonly list: Figure[] = [];

  constructor(private readonly section: string) {}

  add(name: string, value: number | string, unit: string, note?: string): void {
    this.list.push({ section: this.section, name, value, unit, ...(note ? { note } : {}) });
  }
}

export interface SectionResult {
  /** What was run, for the reader: sizes, repetitions, settings. */
  setup: Record<string, unknown>;
  figures: Figure[];
  /** Raw per-run measurements, so medians can be checked. */
  runs: unknown;
  /** Plain-language observations (where growth is not linear, where a run lost files, …). */
  findings: string[];
  seconds: number;
}

export function formatValue(figure: Figure): string {
  const v = figure.value;
  const text = typeof v === 'number' ? (Number.isInteger(v) ? String(v) : v.toFixed(Math.abs(v) >= 100 ? 0 : Math.abs(v) >= 10 ? 1 : 2)) : v;
  return figure.unit ? `${text} ${figure.unit}` : text;
}

/** A plain fixed-width table: section, figure, value with unit, note. */
export function renderTable(figures: readonly Figure[]): string {
  const rows = figures.map((f) => [f.section, f.name, formatValue(f), f.note ?? '']);
  const head = ['section', 'figure', 'value', 'note'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] as number))).join('  ').trimEnd();
  const out = [line(head), line(widths.map((w) => '-'.repeat(w)))];
  let last = '';
  for (const r of rows) {
    out.push(line([r[0] === last ? '' : (r[0] as string), r[1] as string, r[2] as string, r[3] as string]));
    last = r[0] as string;
  }
  return out.join('\n');
}
