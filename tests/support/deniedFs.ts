import fs from 'node:fs';
import path from 'node:path';

/**
 * `fs.readdir` that answers as a folder without read permission does for folders of these names, and lists the
 * rest: tests run as root, where a chmod would not stop the listing. Pass it as the walk's `fs.readdir`.
 */
export function readdirDenying(names: readonly string[]): typeof fs.readdir {
  return ((dir: string, settings: object, done: (error: NodeJS.ErrnoException | null, entries?: unknown) => void) => {
    if (names.includes(path.basename(dir))) done(Object.assign(new Error(`EACCES: permission denied, scandir '${dir}'`), { code: 'EACCES' }));
    else fs.readdir(dir, settings as { withFileTypes: true }, done);
  }) as unknown as typeof fs.readdir;
}
