/**
 * The SQL editor: CodeMirror 6 with SQL highlighting, completion of keywords, datasets and
 * columns (fed from the runtime's catalog), Ctrl/Cmd-Enter to run the selection or the statement
 * under the cursor, and several tabs kept in local storage (each with its own undo history while
 * the page lives).
 */
import { basicSetup } from 'codemirror';
import { EditorView, keymap } from '@codemirror/view';
import { Compartment, EditorState, Prec } from '@codemirror/state';
import { PostgreSQL, sql, type SQLNamespace } from '@codemirror/lang-sql';
import { element } from './dom.js';
import { statementAt } from './statements.js';

const TABS_STORAGE = 'quarry.playground.tabs';
const FIRST_QUERY = 'SELECT 1 AS hello;\n';

interface StoredTab {
  readonly title: string;
  readonly text: string;
}

interface Tab {
  title: string;
  state: EditorState;
}

export class SqlEditor {
  private readonly language = new Compartment();
  private readonly view: EditorView;
  private tabs: Tab[] = [];
  private active = 0;
  private schema: SQLNamespace = {};

  constructor(
    host: HTMLElement,
    private readonly tabBar: HTMLElement,
    private readonly run: (sql: string) => void,
    private readonly nonce: string,
  ) {
    this.tabs = loadTabs().map((tab) => ({ title: tab.title, state: this.newState(tab.text) }));
    // Made with its first state: the styles it mounts on creation must carry the CSP nonce.
    this.view = new EditorView({ parent: host, state: this.tabs[0]!.state });
    this.drawTabs();
  }

  /** Datasets and their columns for completion (`orders` → `order_id`, …). */
  setSchema(schema: SQLNamespace): void {
    this.schema = schema;
    for (const [index, tab] of this.tabs.entries()) {
      if (index === this.active) continue;
      tab.state = tab.state.update({ effects: this.language.reconfigure(this.languageExtension()) }).state;
    }
    this.view.dispatch({ effects: this.language.reconfigure(this.languageExtension()) });
  }

  text(): string {
    return this.view.state.doc.toString();
  }

  /** Replaces the active tab's text (a history entry chosen), as one undoable change. */
  setText(text: string): void {
    this.view.dispatch({ changes: { from: 0, to: this.view.state.doc.length, insert: text }, selection: { anchor: text.length } });
    this.view.focus();
  }

  /** The selection when there is one, else the statement under the cursor. */
  statementToRun(): string | undefined {
    const state = this.view.state;
    const selection = state.selection.main;
    if (!selection.empty) return state.sliceDoc(selection.from, selection.to).trim() || undefined;
    return statementAt(state.doc.toString(), selection.head);
  }

  focus(): void {
    this.view.focus();
  }

  private languageExtension() {
    return sql({ dialect: PostgreSQL, schema: this.schema, upperCaseKeywords: true });
  }

  private newState(text: string): EditorState {
    const runKey = (): boolean => {
      const statement = this.statementToRun();
      if (statement !== undefined) this.run(statement);
      return true;
    };
    return EditorState.create({
      doc: text,
      extensions: [
        Prec.highest(keymap.of([{ key: 'Mod-Enter', run: runKey }])),
        basicSetup,
        this.language.of(this.languageExtension()),
        EditorView.cspNonce.of(this.nonce),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) this.save();
        }),
        EditorView.contentAttributes.of({ 'aria-label': 'SQL editor', 'data-test': 'editor' }),
      ],
    });
  }

  private switchTo(index: number): void {
    this.tabs[this.active]!.state = this.view.state;
    this.active = index;
    this.view.setState(this.tabs[index]!.state);
    this.drawTabs();
    this.save();
    this.view.focus();
  }

  private addTab(): void {
    this.tabs[this.active]!.state = this.view.state;
    this.tabs.push({ title: `Query ${this.tabs.length + 1}`, state: this.newState('') });
    this.switchTo(this.tabs.length - 1);
  }

  private closeTab(index: number): void {
    if (this.tabs.length === 1) return;
    this.tabs[this.active]!.state = this.view.state;
    this.tabs.splice(index, 1);
    const next = Math.min(index <= this.active ? Math.max(0, this.active - 1) : this.active, this.tabs.length - 1);
    this.active = next;
    this.view.setState(this.tabs[next]!.state);
    this.drawTabs();
    this.save();
  }

  private drawTabs(): void {
    const buttons = this.tabs.map((tab, index) => {
      const close = element('span', { className: 'tab-close', text: '×', title: 'Close tab', attributes: { role: 'button', 'aria-label': `close ${tab.title}` } });
      close.addEventListener('click', (event) => {
        event.stopPropagation();
        this.closeTab(index);
      });
      const button = element('button', { className: index === this.active ? 'tab active' : 'tab', text: tab.title, attributes: { type: 'button', role: 'tab', 'aria-selected': String(index === this.active) } }, this.tabs.length > 1 ? [close] : []);
      button.addEventListener('click', () => this.switchTo(index));
      return button;
    });
    const add = element('button', { className: 'tab add', text: '+', title: 'New tab', attributes: { type: 'button', 'aria-label': 'new tab', 'data-test': 'new-tab' } });
    add.addEventListener('click', () => this.addTab());
    this.tabBar.replaceChildren(...buttons, add);
  }

  private save(): void {
    const tabs: StoredTab[] = this.tabs.map((tab, index) => ({ title: tab.title, text: (index === this.active ? this.view.state : tab.state).doc.toString() }));
    localStorage.setItem(TABS_STORAGE, JSON.stringify({ active: this.active, tabs }));
  }
}

function loadTabs(): StoredTab[] {
  try {
    const stored = JSON.parse(localStorage.getItem(TABS_STORAGE) ?? 'null') as { tabs?: StoredTab[] } | null;
    const tabs = (stored?.tabs ?? []).filter((tab) => typeof tab.text === 'string' && typeof tab.title === 'string');
    if (tabs.length > 0) return tabs;
  } catch {
    // A damaged entry (edited by hand): start again with one tab.
  }
  return [{ title: 'Query 1', text: FIRST_QUERY }];
}
