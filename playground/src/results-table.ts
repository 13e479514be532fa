/**
 * The results grid, virtualised: only the rows in view (plus a margin) exist in the DOM, placed
 * by their index, so 100k rows scroll as smoothly as 100. Values are formatted when a row is
 * drawn, never for the whole result.
 */
import type { Table } from 'apache-arrow';
import { element } from './dom.js';
import { columnView, type ColumnView } from './values.js';

const ROW_HEIGHT = 24;
const MARGIN_ROWS = 10;
/** Rows sampled to size the columns (character widths), clamped to a readable range. */
const SIZING_SAMPLE = 200;
const MIN_CHARS = 6;
const MAX_CHARS = 48;

export class ResultsTable {
  private table: Table | undefined;
  private views: ColumnView[] = [];
  private widths: number[] = [];
  private readonly body: HTMLDivElement;
  private readonly header: HTMLDivElement;
  private readonly grid: HTMLDivElement;
  private drawn = { from: -1, to: -1 };

  constructor(private readonly viewport: HTMLElement) {
    this.header = element('div', { className: 'grid-header' });
    this.body = element('div', { className: 'grid-body' });
    this.grid = element('div', { className: 'grid', attributes: { role: 'table' } }, [this.header, this.body]);
    viewport.append(this.grid);
    viewport.addEventListener('scroll', () => this.draw(), { passive: true });
    new ResizeObserver(() => this.draw()).observe(viewport);
  }

  show(table: Table): void {
    this.table = table;
    this.views = table.schema.fields.map(columnView);
    this.widths = this.views.map((view, index) => this.columnWidth(table, view, index));
    const total = this.widths.reduce((sum, width) => sum + width, 0) + 64;
    this.grid.style.width = `${total}px`;
    this.header.replaceChildren(
      element('div', { className: 'cell row-number', text: '#' }),
      ...this.views.map((view, index) => {
        const cell = element('div', { className: `cell${view.numeric ? ' numeric' : ''}`, title: `${view.name}: ${view.typeLabel}` }, [
          element('span', { className: 'column-name', text: view.name }),
          element('span', { className: 'column-type', text: view.typeLabel }),
        ]);
        cell.style.width = `${this.widths[index]}px`;
        return cell;
      }),
    );
    this.body.style.height = `${table.numRows * ROW_HEIGHT}px`;
    this.viewport.scrollTop = 0;
    this.drawn = { from: -1, to: -1 };
    this.body.replaceChildren();
    this.draw();
  }

  clear(): void {
    this.table = undefined;
    this.header.replaceChildren();
    this.body.replaceChildren();
    this.body.style.height = '0px';
  }

  /** The DOM rows present now (for tests: virtualisation keeps this small). */
  renderedRowCount(): number {
    return this.body.childElementCount;
  }

  private columnWidth(table: Table, view: ColumnView, index: number): number {
    const vector = table.getChildAt(index);
    let characters = Math.max(view.name.length, Math.min(view.typeLabel.length, 16), MIN_CHARS);
    const sample = Math.min(table.numRows, SIZING_SAMPLE);
    for (let row = 0; row < sample && characters < MAX_CHARS; row += 1) {
      const value = vector?.get(row);
      if (value !== null && value !== undefined) characters = Math.max(characters, view.format(value).length);
    }
    return Math.min(characters, MAX_CHARS) * 8 + 20;
  }

  private draw(): void {
    const table = this.table;
    if (table === undefined) return;
    const headerHeight = this.header.offsetHeight;
    const top = Math.max(0, this.viewport.scrollTop - headerHeight);
    const from = Math.max(0, Math.floor(top / ROW_HEIGHT) - MARGIN_ROWS);
    const to = Math.min(table.numRows, Math.ceil((top + this.viewport.clientHeight) / ROW_HEIGHT) + MARGIN_ROWS);
    if (from === this.drawn.from && to === this.drawn.to) return;
    this.drawn = { from, to };
    const vectors = this.views.map((_, index) => table.getChildAt(index));
    const rows: HTMLDivElement[] = [];
    for (let row = from; row < to; row += 1) {
      const line = element('div', { className: 'grid-row', attributes: { role: 'row' } }, [element('div', { className: 'cell row-number', text: String(row + 1) })]);
      line.style.top = `${row * ROW_HEIGHT}px`;
      this.views.forEach((view, index) => {
        const value = vectors[index]?.get(row);
        const cell = value === null || value === undefined
          ? element('div', { className: 'cell null', text: 'NULL' })
          : element('div', { className: `cell${view.numeric ? ' numeric' : ''}`, text: view.format(value) });
        cell.style.width = `${this.widths[index]}px`;
        line.append(cell);
      });
      rows.push(line);
    }
    this.body.replaceChildren(...rows);
  }
}
