/**
 * The tokens file as the server holds it: read at start (a file that cannot be read stops the start), read again
 * when it changes or on `reload()` (SIGHUP). A reading that fails keeps the tokens in force and says why; refused
 * lines are named by number, never by content.
 */
import { readFileSync, watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import { UsageError } from '../shared/errors.js';
import { parseTokens, TokenTable } from './tokens.js';

export interface TokenFileOptions {
  file: string;
  readFile?: (file: string) => string;
  log?: (line: string) => void;
  /** Quiet time after a change event before the file is read (an editor writes in several steps). */
  settleMs?: number;
}

export class TokenFile {
  private table: TokenTable;
  private watcher: FSWatcher | null = null;
  private settle: NodeJS.Timeout | null = null;
  private readonly readFile: (file: string) => string;
  private readonly log: (line: string) => void;

  constructor(private readonly options: TokenFileOptions) {
    this.readFile = options.readFile ?? ((file) => readFileSync(file, 'utf8'));
    this.log = options.log ?? (() => {});
    let text: string;
    try {
      text = this.readFile(options.file);
    } catch (error) {
      throw new UsageError(`cannot read the tokens file (${(error as NodeJS.ErrnoException).code ?? 'error'})`, { hint: 'one token a line: <sha256 hex of the token> <* or repositories separated by commas>' });
    }
    this.table = this.parse(text);
  }

  get tokens(): TokenTable {
    return this.table;
  }

  /** Follows the file's folder, where an editor's or a deploy's rename shows up as well as a write. */
  watch(): void {
    const name = path.basename(this.options.file);
    try {
      this.watcher = watch(path.dirname(this.options.file), { persistent: false }, (_event, changed) => {
        if (changed !== null && changed !== name) return;
        if (this.settle) clearTimeout(this.settle);
        this.settle = setTimeout(() => this.reload(), this.options.settleMs ?? 100);
        this.settle.unref();
      });
      this.watcher.on('error', () => this.log('warning: stopped watching the tokens file; send SIGHUP after changing it'));
    } catch {
      this.log('warning: cannot watch the tokens file; send SIGHUP after changing it');
    }
  }

  reload(): void {
    let text: string;
    try {
      text = this.readFile(this.options.file);
    } catch (error) {
      this.log(`warning: cannot read the tokens file (${(error as NodeJS.ErrnoException).code ?? 'error'}); the tokens in force stay`);
      return;
    }
    this.table = this.parse(text);
  }

  close(): void {
    this.watcher?.close();
    if (this.settle) clearTimeout(this.settle);
  }

  private parse(text: string): TokenTable {
    const { entries, problems } = parseTokens(text);
    for (const problem of problems) this.log(`warning: tokens file ${problem}; line ignored`);
    this.log(`tokens: ${entries.length} in force${entries.length === 0 ? ' (every request gets 401)' : ''}`);
    return new TokenTable(entries);
  }
}
