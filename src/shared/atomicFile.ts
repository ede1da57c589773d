/**
 * Writing a file atomically: the bytes go to a temp file beside the target, which is then renamed over it, so
 * no reader, and no crash, ever sees half a file; a failed write deletes its temp file. Indexes, run reports,
 * reuse states, search packs, the profile cache and plan state are all written this way.
 */
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { mkdir, open, rename, rm, writeFile, type FileHandle } from 'node:fs/promises';
import path from 'node:path';

/** A temp file beside `file` named so a later run can tell whose it was: `.<name>.<pid>.<random>.<suffix>`. */
export function tempPathFor(file: string, suffix: string): string {
  return path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.${suffix}`);
}

/** Writes `content` (text as UTF-8) to `file` atomically, creating its folder. */
export async function writeFileAtomic(file: string, content: string | Uint8Array): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const temp = tempPathFor(file, 'tmp');
  try {
    await writeFile(temp, content, typeof content === 'string' ? 'utf8' : undefined);
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/** Writes `pieces` one after another to `file` atomically, creating its folder; for callers that cannot wait. */
export function writeFileAtomicSync(file: string, pieces: Iterable<Uint8Array>): void {
  const temp = tempPathFor(file, 'tmp');
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    const fd = openSync(temp, 'w');
    const write = (bytes: Uint8Array): void => {
      for (let at = 0; at < bytes.byteLength; ) at += writeSync(fd, bytes, at);
    };
    try {
      // Small pieces (a search pack's postings come a term at a time) are gathered into writes of CHUNK bytes:
      // a system call each cost more than copying them.
      const gathered = Buffer.allocUnsafe(CHUNK);
      let used = 0;
      for (const piece of pieces) {
        if (used + piece.byteLength > CHUNK) {
          write(gathered.subarray(0, used));
          used = 0;
        }
        if (piece.byteLength >= CHUNK) write(piece);
        else {
          gathered.set(piece, used);
          used += piece.byteLength;
        }
      }
      write(gathered.subarray(0, used));
    } finally {
      closeSync(fd);
    }
    renameSync(temp, file);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

/** The digest written files are named by: not a security boundary, only a check that a file is the one written. */
export const DIGEST = 'sha1';

/** Pieces are gathered into writes of about this many bytes. */
const CHUNK = 1 << 20;

export interface WrittenFile {
  /** The file's SHA-1 (DIGEST), hex: what ties a reuse state to its index. */
  digest: string;
  bytes: number;
}

/**
 * A file written in order, piece by piece, to a temp file beside its target that `commit` renames over it (so
 * no reader, and no crash, sees half of it) and `abort` deletes. Pieces are copied into one reused buffer as
 * they come (a caller may reuse theirs at once), which is hashed and written whenever it fills.
 */
export class AtomicWriter {
  private readonly chunk = Buffer.allocUnsafe(CHUNK);
  private used = 0;
  private readonly hash = createHash(DIGEST);
  /** Bytes written so far. */
  position = 0;

  private constructor(
    readonly file: string,
    private readonly temp: string,
    private readonly handle: FileHandle,
  ) {}

  static async open(file: string): Promise<AtomicWriter> {
    await mkdir(path.dirname(file), { recursive: true });
    const temp = tempPathFor(file, 'tmp');
    return new AtomicWriter(file, temp, await open(temp, 'w'));
  }

  async write(bytes: Uint8Array): Promise<void> {
    let from = 0;
    while (from < bytes.length) {
      const copied = Math.min(bytes.length - from, CHUNK - this.used);
      this.chunk.set(bytes.subarray(from, from + copied), this.used);
      this.used += copied;
      from += copied;
      if (this.used === CHUNK) await this.flush();
    }
    this.position += bytes.length;
  }

  /** Writes `text` as UTF-8, encoded straight into the buffer. */
  async writeText(text: string): Promise<void> {
    const length = Buffer.byteLength(text);
    if (length > CHUNK - this.used) await this.flush();
    if (length > CHUNK) return this.write(Buffer.from(text));
    this.chunk.write(text, this.used, 'utf8');
    this.used += length;
    this.position += length;
  }

  async commit(): Promise<WrittenFile> {
    try {
      await this.flush();
      await this.handle.close();
      await rename(this.temp, this.file);
    } catch (error) {
      await this.abort();
      throw error;
    }
    return { digest: this.hash.digest('hex'), bytes: this.position };
  }

  async abort(): Promise<void> {
    await this.handle.close().catch(() => undefined);
    await rm(this.temp, { force: true });
  }

  private async flush(): Promise<void> {
    if (this.used === 0) return;
    const filled = this.chunk.subarray(0, this.used);
    this.hash.update(filled);
    let written = 0;
    while (written < filled.length) written += (await this.handle.write(filled, written, filled.length - written)).bytesWritten;
    this.used = 0;
  }
}
