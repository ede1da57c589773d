/**
 * Screens text before it leaves the machine: known secret shapes and credential-looking assignments are
 * replaced by `[REDACTED:<kind>]`, and counted. Credential files (.env, *.pem, id_rsa, …) never get this
 * far: classify records them as skipped without reading them.
 */

interface SecretPattern {
  kind: string;
  pattern: RegExp;
  /** Which capture group is the secret; the whole match when absent. */
  group?: number;
  /** A cheap test that the text can hold a match at all: the pattern is run only where it can match. */
  possible?: (text: string) => boolean;
  /** A token shape: run only when the text holds one of TOKEN_LITERALS. */
  token?: true;
}

/**
 * A literal every token shape's match holds, found in one scan instead of one per shape. No replacement holds
 * one (`[REDACTED:…]` has none, and none crosses a bracket), so the test of the input stands for every shape.
 */
const TOKEN_LITERALS = /AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|gh[pousr]_|github_pat_|sk-|k_live_|k_test_|xox[abposr]-|AIza|eyJ/;

const URL_CREDENTIALS_TAIL = /:\/\/[^\s:@/'"]+:[^\s@/'"]+@/;
/** Every word the password pattern names holds one of these. */
const PASSWORD_WORD = /pass|pwd|secret/i;

const PATTERNS: SecretPattern[] = [
  { kind: 'private_key', pattern: /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|$)/g },
  { kind: 'aws_access_key', pattern: /\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA)[0-9A-Z]{16}\b/g, token: true },
  { kind: 'github_token', pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})\b/g, token: true },
  { kind: 'anthropic_key', pattern: /\bsk-ant-[A-Za-z0-9_-]{20,}/g, token: true },
  { kind: 'openai_key', pattern: /\bsk-(?:proj-|svcacct-)?[A-Za-z0-9_-]{20,}/g, token: true },
  { kind: 'stripe_key', pattern: /\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}\b/g, token: true },
  { kind: 'slack_token', pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g, token: true },
  { kind: 'google_api_key', pattern: /\bAIza[0-9A-Za-z_-]{35}\b/g, token: true },
  { kind: 'jwt', pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, token: true },
  // The tail of the pattern, led by its literal `://`, is found far faster than the pattern tried at every word.
  { kind: 'url_credentials', pattern: /\b[a-z][a-z0-9+.-]*:\/\/[^\s:@/'"]+:([^\s@/'"]+)@/gi, group: 1, possible: (text) => URL_CREDENTIALS_TAIL.test(text) },
  {
    kind: 'password',
    pattern: /\b(?:password|passwd|pwd|pass|secret|client_secret)\b["']?\s*[:=]\s*["']([^"'\s]{4,})["']/gi,
    group: 1,
    possible: (text) => PASSWORD_WORD.test(text),
  },
];

/** Quoted values assigned to key-, secret- or token-named variables, kept only when they look random. */
const ASSIGNMENT = /\b([A-Za-z_][\w.-]*(?:key|secret|token|auth|credential|passwd|password|apikey|access)[\w.-]*)["']?\s*[:=]\s*["']([A-Za-z0-9+/=_\-.]{16,})["']/gi;
/**
 * What every ASSIGNMENT match ends with, led by its `:` or `=`, found far faster than trying ASSIGNMENT at every
 * word; and a name's keyword right before it.
 */
const ASSIGNED_VALUE = /[:=]\s*["'][A-Za-z0-9+/=_\-.]{16,}["']/;
const ASSIGNMENT_TAIL = /(?:key|secret|token|auth|credential|passwd|password|apikey|access)[\w.-]*["']?\s*[:=]\s*["'][A-Za-z0-9+/=_\-.]{16,}["']/i;

export interface RedactionResult {
  text: string;
  count: number;
  kinds: Record<string, number>;
}

export function redactSecrets(input: string): RedactionResult {
  let text = input;
  let count = 0;
  const kinds: Record<string, number> = {};
  const note = (kind: string) => {
    count++;
    kinds[kind] = (kinds[kind] ?? 0) + 1;
  };
  const tokens = TOKEN_LITERALS.test(text);
  for (const { kind, pattern, group, possible, token } of PATTERNS) {
    if ((token && !tokens) || (possible && !possible(text))) continue;
    text = text.replace(pattern, (match: string, ...groups: unknown[]) => {
      const secret = group ? groups[group - 1] : match;
      if (typeof secret !== 'string' || secret.includes('[REDACTED')) return match;
      note(kind);
      return match.replace(secret, `[REDACTED:${kind}]`);
    });
  }
  if (ASSIGNED_VALUE.test(text) && ASSIGNMENT_TAIL.test(text)) {
    text = text.replace(ASSIGNMENT, (match: string, _name: string, value: string) => {
      if (value.includes('REDACTED') || shannonEntropy(value) < 3.5) return match;
      note('high_entropy');
      return match.replace(value, '[REDACTED:high_entropy]');
    });
  }
  return { text, count, kinds };
}

/** Bits per character: random keys score above ~3.5, words and identifiers below. */
export function shannonEntropy(value: string): number {
  const counts = new Map<string, number>();
  for (const c of value) counts.set(c, (counts.get(c) ?? 0) + 1);
  let entropy = 0;
  for (const n of counts.values()) {
    const p = n / value.length;
    entropy -= p * Math.log2(p);
  }
  return entropy;
}
