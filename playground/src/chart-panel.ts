/**
 * The chart of a result, drawn by Chart.js on a canvas: kind and columns picked by the user or
 * guessed from the types (chart-guess.ts), saved as PNG from the canvas itself.
 */
import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, LineController, LineElement, PointElement, ScatterController, Tooltip, type ChartConfiguration } from 'chart.js';
import type { Table } from 'apache-arrow';
import { element, saveFile } from './dom.js';
import { guessChart, type ChartKind } from './chart-guess.js';
import { columnView, type ColumnView } from './values.js';

Chart.register(BarController, BarElement, CategoryScale, Legend, LinearScale, LineController, LineElement, PointElement, ScatterController, Tooltip);

/** More points than this are thinned (every n-th row) so a chart of 100k rows still draws at once. */
const MAX_POINTS = 5_000;
const MAX_BARS = 500;
const PALETTE = ['#2563eb', '#dc2626', '#16a34a', '#d97706', '#7c3aed', '#0891b2'];
const ROW_NUMBER = '(row number)';

/** Paints the canvas white first: a saved PNG is readable on any background. */
const whiteBackground = {
  id: 'quarry-white-background',
  beforeDraw(chart: Chart) {
    const context = chart.ctx;
    context.save();
    context.globalCompositeOperation = 'destination-over';
    context.fillStyle = '#ffffff';
    context.fillRect(0, 0, chart.width, chart.height);
    context.restore();
  },
};

export class ChartPanel {
  private chart: Chart | undefined;
  private table: Table | undefined;
  private views: ColumnView[] = [];
  private readonly kindSelect = element('select', { attributes: { 'aria-label': 'chart type', 'data-test': 'chart-kind' } });
  private readonly xSelect = element('select', { attributes: { 'aria-label': 'x axis column', 'data-test': 'chart-x' } });
  private readonly ySelect = element('select', { attributes: { 'aria-label': 'y axis columns', multiple: '', size: '3', 'data-test': 'chart-y' } });
  private readonly note = element('span', { className: 'muted' });
  private readonly canvas = element('canvas', { attributes: { 'data-test': 'chart-canvas' } });

  constructor(container: HTMLElement) {
    for (const kind of ['line', 'bar', 'scatter']) this.kindSelect.append(element('option', { text: kind, attributes: { value: kind } }));
    const save = element('button', { text: 'Save PNG', attributes: { type: 'button', 'data-test': 'chart-png' } });
    save.addEventListener('click', () => this.savePng());
    for (const select of [this.kindSelect, this.xSelect, this.ySelect]) select.addEventListener('change', () => this.draw());
    container.append(
      element('div', { className: 'chart-controls' }, [
        element('label', { text: 'Chart ' }, [this.kindSelect]),
        element('label', { text: ' x ' }, [this.xSelect]),
        element('label', { text: ' y ' }, [this.ySelect]),
        save,
        this.note,
      ]),
      element('div', { className: 'chart-area' }, [this.canvas]),
    );
  }

  /** A new result: guess the chart, fill the pickers, draw. */
  show(table: Table): void {
    this.table = table;
    this.views = table.schema.fields.map(columnView);
    const guess = guessChart(this.views);
    this.xSelect.replaceChildren(element('option', { text: ROW_NUMBER, attributes: { value: '' } }), ...this.views.map((view) => element('option', { text: view.name, attributes: { value: view.name } })));
    this.ySelect.replaceChildren(...this.views.filter((view) => view.numeric).map((view) => element('option', { text: view.name, attributes: { value: view.name } })));
    if (guess === undefined) {
      this.destroy();
      this.note.textContent = 'No numeric column to plot.';
      return;
    }
    this.kindSelect.value = guess.kind;
    this.xSelect.value = guess.x ?? '';
    for (const option of Array.from(this.ySelect.options)) option.selected = guess.y.includes(option.value);
    this.draw();
  }

  /** The chart drawn now (tests read its data through the page). */
  current(): Chart | undefined {
    return this.chart;
  }

  private draw(): void {
    const table = this.table;
    if (table === undefined) return;
    const kind = this.kindSelect.value as ChartKind;
    const xName = this.xSelect.value;
    const yNames = Array.from(this.ySelect.selectedOptions).map((option) => option.value);
    this.destroy();
    if (yNames.length === 0) {
      this.note.textContent = 'Pick a y column.';
      return;
    }
    const limit = kind === 'bar' ? MAX_BARS : MAX_POINTS;
    const stride = kind === 'bar' ? 1 : Math.max(1, Math.ceil(table.numRows / limit));
    const rows: number[] = [];
    for (let row = 0; row < table.numRows && rows.length < limit; row += stride) rows.push(row);
    this.note.textContent = rows.length < table.numRows ? `${rows.length.toLocaleString()} of ${table.numRows.toLocaleString()} rows plotted` : '';
    const xIndex = this.views.findIndex((view) => view.name === xName);
    const xView = this.views[xIndex];
    const xVector = xIndex === -1 ? undefined : table.getChildAt(xIndex);
    const xValue = (row: number): number | string => {
      const value = xVector?.get(row);
      if (xView === undefined) return row + 1;
      if (value === null || value === undefined) return 'NULL';
      return kind === 'scatter' && xView.numeric ? Number(xView.format(value)) : xView.format(value);
    };
    const datasets = yNames.map((name, series) => {
      const index = this.views.findIndex((view) => view.name === name);
      const view = this.views[index]!;
      const vector = table.getChildAt(index);
      const y = (row: number) => {
        const value = vector?.get(row);
        return value === null || value === undefined ? null : Number(view.format(value));
      };
      const color = PALETTE[series % PALETTE.length]!;
      return {
        label: name,
        data: kind === 'scatter' ? rows.map((row) => ({ x: Number(xValue(row)), y: y(row) })) : rows.map(y),
        borderColor: color,
        backgroundColor: color,
        pointRadius: kind === 'line' && rows.length > 200 ? 0 : 2,
      };
    });
    const config = {
      type: kind,
      data: { labels: kind === 'scatter' ? undefined : rows.map(xValue), datasets },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        scales: { x: { title: { display: true, text: xName || ROW_NUMBER } } },
      },
      plugins: [whiteBackground],
    } as unknown as ChartConfiguration;
    this.chart = new Chart(this.canvas, config);
  }

  private destroy(): void {
    this.chart?.destroy();
    this.chart = undefined;
  }

  private savePng(): void {
    if (this.chart === undefined) return;
    const dataUrl = this.chart.toBase64Image('image/png');
    const bytes = Uint8Array.from(atob(dataUrl.slice(dataUrl.indexOf(',') + 1)), (character) => character.charCodeAt(0));
    saveFile('chart.png', bytes, 'image/png');
  }
}
