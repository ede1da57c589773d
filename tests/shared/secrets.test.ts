import { describe, expect, it } from 'vitest';
import { redactSecrets } from '../../src/shared/secrets.js';

describe('redacting secrets before anything leaves the machine', () => {
  it.each([
    ['an AWS access key', 'key = "AKIAIOSFODNN7EXAMPLE"', 'aws_access_key'],
    ['a GitHub token', 'token: ghp_abcdefghijklmnopqrstuvwxyz0123456789', 'github_token'],
    ['an OpenAI key', 'OPENAI = "sk-proj-abcdefghijklmnopqrstuvwx"', 'openai_key'],
    ['an Anthropic key', 'k = "sk-ant-api03-abcdefghijklmnopqrstu"', 'anthropic_key'],
    ['a Slack token', 'xoxb-123456789012-abcdefghij', 'slack_token'],
    ['a Google API key', 'AIzaSyA1234567890abcdefghijklmnopqrstuv', 'google_api_key'],
    ['a private key block', '-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIB\n-----END EC PRIVATE KEY-----', 'private_key'],
    ['a password assignment', 'password = "correct horse"'.replace(' horse', '-horse'), 'password'],
    ['credentials in a URL', 'postgres://admin:s3cretpass@db.internal:5432/app', 'url_credentials'],
    ['a random token in an assignment', 'const apiToken = "q8Zr3LmX9vKp2WtY7nBd5Jf";', 'high_entropy'],
  ])('redacts %s', (_name, input, kind) => {
    const result = redactSecrets(input);
    expect(result.count).toBe(1);
    expect(result.kinds).toEqual({ [kind]: 1 });
    expect(result.text).toContain(`[REDACTED:${kind}]`);
  });

  it.each([
    ['an ordinary assignment', 'const tokenizer = "whitespace-tokenizer-v2";'],
    ['a password prompt in a UI string', 'label = "Enter your password"'],
    ['code mentioning keys', 'function getKey(map, key) { return map[key]; }'],
  ])('leaves %s alone', (_name, input) => {
    expect(redactSecrets(input)).toMatchObject({ text: input, count: 0 });
  });
});
