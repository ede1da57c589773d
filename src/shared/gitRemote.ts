/**
 * A git remote URL as a repository's identity: the forms one repository is cloned by (`https://github.com/a/b.git`,
 * `git@github.com:a/b`, `ssh://git@GitHub.com/a/b/`) all read `github.com/a/b`, so a developer's clone, a CI
 * checkout and a clone in another folder are known as one repository.
 */
import path from 'node:path';

/**
 * The remote without its scheme, user, password, `.git` suffix, trailing slashes and the case of its host;
 * a local remote (a path, or a `file://` URL) is its absolute path. Null for an empty remote.
 */
export function normalizeRemote(url: string, base = process.cwd()): string | null {
  const text = url.trim();
  if (!text) return null;
  if (text.startsWith('file://')) return stripGit(path.resolve(decodeURIComponent(text.slice('file://'.length))));
  const scheme = /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/]*@)?([^/]+)(\/.*)?$/i.exec(text);
  if (scheme) return join(scheme[1] as string, scheme[2] ?? '');
  // scp-like syntax, `user@host:path`; a Windows drive (`C:\…`) is a path.
  const scp = /^(?:[^@/]+@)?([^:/]{2,}):(.*)$/.exec(text);
  if (scp) return join(scp[1] as string, scp[2] as string);
  return stripGit(path.resolve(base, text));
}

function join(host: string, rest: string): string {
  const cleanHost = host.toLowerCase().replace(/:(22|80|443)$/, '');
  const trail = stripGit(rest.replace(/^\/+/, '').replace(/\/+$/, ''));
  return trail ? `${cleanHost}/${trail}` : cleanHost;
}

function stripGit(value: string): string {
  return value.replace(/\/+$/, '').replace(/\.git$/i, '').replace(/\/+$/, '');
}

/** The repository's short name in a normalised remote: its last part (`github.com/pallets/flask` → `flask`). */
export function remoteName(remote: string): string {
  const parts = remote.split(/[/\\]/).filter(Boolean);
  return parts.at(-1) ?? remote;
}

/** The owner and name in a normalised remote (`github.com/pallets/flask` → `pallets/flask`); the name alone when there is no owner. */
export function remoteOwnerAndName(remote: string): string {
  const parts = remote.split(/[/\\]/).filter(Boolean);
  return parts.length >= 3 ? parts.slice(-2).join('/') : remoteName(remote);
}
