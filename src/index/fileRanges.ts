/**
 * Byte ranges of files, for assembling an index from stored entries: `RangeReader` reads ranges of a file
 * through a window, so reads in increasing order (entries in path order) cost one read per megabyte;
 * `FragmentFile` is an append-only temp file that holds a run's finished entries until the index is written.
 */
import { open, rm, type FileHandle } from 'node:fs/promises';

const WINDOW = 1 << 20;

/**
 * Reads byte ranges of a file through one window it reuses: an answer holds until the next read (copy it to
 * keep it). Reads in increasing order cost one read per megabyte.
 */
export class RangeReader {
  private readonly buffer = Buffer.allocUnsafe(WINDOW);
  private window: Buffer = this.buffer.subarray(0, 0);
  private windowStart = 0;

  constructor(private readonly handle: FileHandle) {}

  static async open(file: string): Promise<RangeReader> {
    return new RangeReader(await open(file, 'r'));
  }

  /** The bytes [start, end); a range past the end of the file is an error, not a short answer. */
  async read(start: number, end: number): Promise<Buffer> {
    if (start >= this.windowStart && end <= this.windowStart + this.window.length) {
      return this.window.subarray(start - this.windowStart, end - this.windowStart);
    }
    const length = end - start;
    const into = length > WINDOW ? Buffer.allocUnsafe(length) : this.buffer;
    const { bytesRead } = await this.handle.read(into, 0, into.length, start);
    if (bytesRead < length) throw new RangeError(`bytes ${start}-${end} are past the end of the file`);
    this.window = into.subarray(0, bytesRead);
    this.windowStart = start;
    return this.window.subarray(0, length);
  }

  close(): Promise<void> {
    return this.handle.close();
  }
}

/**
 * Entry text appended as it is made, encoded straight into a megabyte buffer that is written out whenever it
 * fills (and then reused), read back by range; removed when the run ends, however it ends.
 */
export class FragmentFile {
  private chunk: Buffer = Buffer.allocUnsafe(WINDOW);
  private used = 0;
  /** Where `chunk` starts in the file. */
  private chunkStart = 0;
  private readonly spare: Buffer[] = [];
  private writing: Promise<void> = Promise.resolve();
  /** Writes queued and not yet done. */
  private queued = 0;
  private failure: unknown = null;
  private readonly reader: RangeReader;

  private constructor(
    readonly file: string,
    private readonly handle: FileHandle,
  ) {
    this.reader = new RangeReader(handle);
  }

  static async create(file: string): Promise<FragmentFile> {
    return new FragmentFile(file, await open(file, 'wx+'));
  }

  /** Appends `text` as UTF-8 and answers where its bytes are. */
  async append(text: string): Promise<{ start: number; end: number }> {
    if (this.failure !== null) throw this.failure;
    const length = Buffer.byteLength(text);
    if (length > WINDOW - this.used) this.flush();
    const start = this.chunkStart + this.used;
    if (length > WINDOW) {
      const bytes = Buffer.from(text);
      this.chunkStart += length;
      this.queue(() => writeAll(this.handle, bytes, start));
    } else {
      this.chunk.write(text, this.used, 'utf8');
      this.used += length;
    }
    // Never more than a few megabytes waiting for the disk; below that, no caller waits.
    if (this.queued > 2) await this.settled();
    return { start, end: start + length };
  }

  async read(start: number, end: number): Promise<Buffer> {
    if (end > this.chunkStart) this.flush();
    await this.settled();
    return this.reader.read(start, end);
  }

  /** Hands the filled part of the buffer to the writes, in order, and goes on in another buffer. */
  private flush(): void {
    if (this.used === 0) return;
    const filled = this.chunk;
    const bytes = filled.subarray(0, this.used);
    const position = this.chunkStart;
    this.queue(async () => {
      await writeAll(this.handle, bytes, position);
      this.spare.push(filled);
    });
    this.chunkStart += this.used;
    this.chunk = this.spare.pop() ?? Buffer.allocUnsafe(WINDOW);
    this.used = 0;
  }

  /** Writes after every earlier write. */
  private queue(write: () => Promise<void>): void {
    this.queued++;
    this.writing = this.writing
      .then(() => (this.failure === null ? write() : undefined))
      .catch((error: unknown) => {
        this.failure ??= error;
      })
      .finally(() => {
        this.queued--;
      });
  }

  /** A write that failed fails the next append or read. */
  private async settled(): Promise<void> {
    await this.writing;
    if (this.failure !== null) throw this.failure;
  }

  /** Closes and deletes the file. */
  async remove(): Promise<void> {
    await this.writing.catch(() => undefined);
    await this.handle.close().catch(() => undefined);
    await rm(this.file, { force: true });
  }
}

async function writeAll(handle: FileHandle, bytes: Buffer, position: number): Promise<void> {
  let written = 0;
  while (written < bytes.length) written += (await handle.write(bytes, written, bytes.length - written, position + written)).bytesWritten;
}
