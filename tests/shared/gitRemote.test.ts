import { describe, expect, it } from 'vitest';
import { normalizeRemote, remoteName, remoteOwnerAndName } from '../../src/shared/gitRemote.js';

describe('normalizeRemote', () => {
  it.each([
    ['https://github.com/pallets/flask.git', 'github.com/pallets/flask'],
    ['https://github.com/pallets/flask', 'github.com/pallets/flask'],
    ['https://user:token@GitHub.com/pallets/flask/', 'github.com/pallets/flask'],
    ['git@github.com:pallets/flask.git', 'github.com/pallets/flask'],
    ['ssh://git@github.com:22/pallets/flask.git', 'github.com/pallets/flask'],
    ['git://github.com/pallets/flask', 'github.com/pallets/flask'],
    ['https://gitlab.example.com:8443/group/sub/project.git', 'gitlab.example.com:8443/group/sub/project'],
    ['file:///srv/git/flask.git', '/srv/git/flask'],
    ['/srv/git/flask/', '/srv/git/flask'],
    ['../flask', '/work/flask'],
    ['  ', null],
  ])('reads %j as %j', (url, expected) => {
    expect(normalizeRemote(url, '/work/clone')).toBe(expected);
  });

  it('keeps the case of the path, which some hosts tell apart', () => {
    expect(normalizeRemote('https://HOST.example/Team/Repo.git')).toBe('host.example/Team/Repo');
  });
});

describe('remoteName and remoteOwnerAndName', () => {
  it('give the last part, and the owner with it', () => {
    expect(remoteName('github.com/pallets/flask')).toBe('flask');
    expect(remoteOwnerAndName('github.com/pallets/flask')).toBe('pallets/flask');
    expect(remoteOwnerAndName('host/flask')).toBe('flask');
    expect(remoteName('/srv/git/flask')).toBe('flask');
  });
});
