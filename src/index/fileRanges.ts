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

/** Entry bytes appended as they are made, read back by range; removed when the run ends, however it ends. */
export class FragmentFile {
  private size = 0;
  private pending: Buffer[] = [];
  private pendingStart = 0;
  private pendingLength = 0;
  private writing: Promise<unknown> = Promise.resolve();
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

  /** Appends `pieces` as one range and answers where it is. */
  async append(pieces: readonly Uint8Array[]): Promise<{ start: number; end: number }> {
    const start = this.size;
    for (const piece of pieces) {
      const buffer = Buffer.isBuffer(piece) ? piece : Buffer.from(piece);
      this.pending.push(buffer);
      this.pendingLength += buffer.length;
      this.size += buffer.length;
    }
    const range = { start, end: this.size };
    if (this.pendingLength >= WINDOW) await this.flush();
    return range;
  }

  async read(start: number, end: number): Promise<Buffer> {
    if (end > this.pendingStart) void this.flush();
    await this.writing;
    return this.reader.read(start, end);
  }

  /** Writes what is pending, after every earlier write; reads wait for `writing`. */
  private flush(): Promise<unknown> {
    if (this.pendingLength > 0) {
      const buffers = this.pending;
      const position = this.pendingStart;
      this.pending = [];
      this.pendingStart += this.pendingLength;
      this.pendingLength = 0;
      this.writing = this.writing.then(() => this.handle.writev(buffers, position));
    }
    return this.writing;
  }

  /** Closes and deletes the file. */
  async remove(): Promise<void> {
    await this.writing.catch(() => undefined);
    await this.handle.close().catch(() => undefined);
    await rm(this.file, { force: true });
  }
}
