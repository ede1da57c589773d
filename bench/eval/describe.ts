/**
 * The description look-up set: "which existing code should I read for this?" (DeepCode's use).
 *
 *   node --import tsx bench/eval/describe.ts [--mirrors DIR] [--out FILE]
 *
 * For each repository in DESCRIBE_REPOS, the query is the repository's own one-sentence description with its name
 * removed, and the answer is the repository. All repositories are searched together: the rankers see the capped
 * source files of every repository at once, and a ranking of files becomes a ranking of repositories by each
 * repository's best file.
 *
 * Where the description comes from. GitHub's "About" text is not part of a git snapshot, and no stored corpus here
 * gives it reliably, so the description is the first sentence of the repository's own README (README.md / .rst /
 * .txt / README at the root, at HEAD), which is what the About text usually repeats. README files are never
 * candidates (only code files are), and neither are the manifests whose package names are removed from the query
 * (Cargo.toml, pyproject.toml, setup.cfg, package.json, go.mod, pom.xml). No npm package description is used.
 *
 * What is indexed. Per repository, at most FILES_PER_REPO hand-written, non-test source files (paths.ts's answer
 * rule), the shallowest first, then by path; files over MAX_FILE_BYTES are left out. A repository's language is the
 * most common language among those files. This file writes describe-cases.json: queries, answers, commits and
 * file lists, never code.
 */
import { writeFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { git } from './git.js';
import { findMirror, mirrorRoot } from './mirrors.js';
import { isSourceFile } from './paths.js';
import type { Language } from './types.js';

/** Repositories kept out of everything tuned here (the maintainers measure on them). */
export const HELD_OUT: readonly string[] = [
  'zod', 'fastify', 'express', 'flask', 'httpx', 'gin', 'requests', 'pytest', 'pylint', 'sphinx', 'seaborn', 'xarray',
];

/** Whether `owner/name` is one of the held-out repositories (by name, case-insensitive). */
export function isHeldOut(hint: string): boolean {
  const name = (hint.split('/')[1] ?? hint).toLowerCase();
  return HELD_OUT.includes(name);
}

/** Well-known libraries and tools, about a dozen per language, none of them held out. */
export const DESCRIBE_REPOS: readonly string[] = [
  // JavaScript / TypeScript
  'koajs/koa', 'axios/axios', 'sindresorhus/ky', 'sindresorhus/got', 'chalk/chalk', 'debug-js/debug', 'tj/commander.js',
  'yargs/yargs', 'markedjs/marked', 'nodeca/js-yaml', 'immerjs/immer', 'pmndrs/zustand', 'reduxjs/redux', 'uuidjs/uuid',
  'jashkenas/underscore', 'lukeed/clsx',
  // Python
  'pallets/click', 'Textualize/rich', 'pallets/jinja', 'pallets/markupsafe', 'python-attrs/attrs', 'encode/starlette',
  'encode/uvicorn', 'tqdm/tqdm', 'fastapi/typer', 'arrow-py/arrow', 'marshmallow-code/marshmallow', 'pypa/packaging',
  'more-itertools/more-itertools', 'psf/black',
  // Go
  'urfave/cli', 'spf13/cobra', 'spf13/viper', 'sirupsen/logrus', 'stretchr/testify', 'gorilla/mux', 'go-chi/chi',
  'uber-go/zap', 'google/uuid', 'fatih/color', 'BurntSushi/toml', 'pkg/errors', 'labstack/echo',
  // Rust
  'sharkdp/fd', 'BurntSushi/ripgrep', 'clap-rs/clap', 'serde-rs/json', 'dtolnay/anyhow', 'dtolnay/thiserror',
  'rust-lang/log', 'tokio-rs/bytes', 'rust-random/rand', 'BurntSushi/walkdir', 'sharkdp/hyperfine', 'sharkdp/bat',
  'chronotope/chrono', 'rust-lang/regex',
  // Java
  'jhy/jsoup', 'google/gson', 'square/javapoet', 'FasterXML/jackson-core', 'apache/commons-lang', 'junit-team/junit4',
  'JodaOrg/joda-time', 'qos-ch/slf4j', 'google/guice', 'apache/commons-io', 'mockito/mockito', 'square/retrofit',
  'google/auto',
];

/**
 * Repositories whose README has no sentence describing the project (checked by hand: markedjs/marked's README
 * is headings and bullet lists, so the rules above find only an installation fragment). They are left out rather
 * than given a description written here.
 */
export const NO_README_DESCRIPTION: readonly string[] = ['markedjs/marked'];

export const FILES_PER_REPO = 40;
export const MAX_FILE_BYTES = 200_000;
/** A description left with fewer words than this once the name is removed says too little to be a query. */
export const MIN_QUERY_WORDS = 4;

/** One description case: the query, the repository that answers it, and the files indexed for it. */
export interface DescribeCase {
  /** GitHub owner/name; also the mirror hint. */
  repo: string;
  language: Language;
  /** HEAD of the snapshot: the files below are taken at this commit. */
  commit: string;
  /** The README the description comes from. */
  source: string;
  /** The README's first descriptive sentence(s), as found. */
  description: string;
  /** The description with the repository's names removed: the query. */
  query: string;
  /** The names removed (repository name, package names from the manifests). */
  names: string[];
  /** Repo-relative source files indexed for this repository (at most FILES_PER_REPO). */
  files: string[];
}

const LANGUAGE_BY_EXT: Readonly<Record<string, Language>> = {
  '.ts': 'typescript', '.tsx': 'typescript', '.mts': 'typescript', '.cts': 'typescript',
  '.js': 'javascript', '.jsx': 'javascript', '.mjs': 'javascript', '.cjs': 'javascript',
  '.py': 'python', '.go': 'go', '.rs': 'rust', '.java': 'java',
};

/** The most common language among `paths` (ties: the first language reached in path order), if any is known. */
export function majorityLanguage(paths: readonly string[]): Language | undefined {
  const counts = new Map<Language, number>();
  for (const p of paths) {
    const lang = LANGUAGE_BY_EXT[posix.extname(p).toLowerCase()];
    if (lang) counts.set(lang, (counts.get(lang) ?? 0) + 1);
  }
  let best: Language | undefined;
  for (const [lang, n] of counts) if (best === undefined || n > (counts.get(best) ?? 0)) best = lang;
  return best;
}

/** The indexed files of a repository: source files of its main language, the shallowest first, then by path. */
export function pickSourceFiles(entries: ReadonlyArray<{ path: string; size: number }>, cap = FILES_PER_REPO): string[] {
  const sources = entries.filter((e) => e.size <= MAX_FILE_BYTES && isSourceFile(e.path));
  const language = majorityLanguage(sources.map((e) => e.path));
  const depth = (p: string): number => p.split('/').length;
  return sources
    .filter((e) => LANGUAGE_BY_EXT[posix.extname(e.path).toLowerCase()] === language)
    .map((e) => e.path)
    .sort((a, b) => depth(a) - depth(b) || (a < b ? -1 : a > b ? 1 : 0))
    .slice(0, cap);
}

/** Markdown/HTML/reStructuredText markup reduced to its prose, line by line. */
function prose(line: string): string {
  return line
    .replace(/<img\b[^>]*>/gi, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/!\[[^\]]*\]\([^)]*\)/g, ' ') // images and badges
    .replace(/!\[[^\]]*\]\[[^\]]*\]/g, ' ')
    .replace(/!\[[^\]]*\]/g, ' ') // reference-style images inside links: [![alt]][ref]
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1') // links keep their text
    .replace(/\[([^\]]*)\]\[[^\]]*\]/g, '$1')
    .replace(/\[([^\]]*)\]/g, '$1') // shortcut reference links: [regular expression]
    .replace(/`([^`]+)`_?/g, '$1') // code spans and rst links
    .replace(/\|[\w -]+\|/g, ' ') // rst substitutions (badges)
    .replace(/:[a-z]+:`([^`]+)`/g, '$1')
    .replace(/[*_]{1,3}([^*_]+)[*_]{1,3}/g, '$1')
    .replace(/&[a-z]+;|&#\d+;/g, ' ')
    .replace(/https?:\/\/\S+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** A line that is markup, not prose: headings, rst directives and underlines, tables, fences, link definitions. */
function isMarkupLine(line: string): boolean {
  const l = line.trim();
  return (
    /^#{1,6}(\s|$)/.test(l) ||
    /^([=\-~^"'`*+#])\1{2,}$/.test(l) ||
    /^\.\.\s/.test(l) ||
    /^:[\w-]+:/.test(l) ||
    /^\|/.test(l) ||
    /^(```|~~~)/.test(l) ||
    /^\[[^\]]+\]:\s/.test(l) ||
    /^[-*+]\s|^\d+\.\s/.test(l)
  );
}

/**
 * Paragraphs that are not the description wherever these words occur: sponsorship, thanks, calls for feedback,
 * GitHub alerts ([!NOTE], whose brackets prose() has removed).
 */
const NOT_A_DESCRIPTION_PARAGRAPH =
  /\b(sponsors?|sponsored|sponsorship|supported by (the community|our|its|sponsors)|backers?|donat\w*|thanks?|thank you|feedback|would love to hear|share your thoughts)\b|!(note|tip|important|warning|caution)\b/i;

/**
 * Sentences that are not a description: the above, licences, installation, demos, translations, the etymology of
 * the name, GitHub alerts ([!NOTE]), labelled notes ("Browser: …"), and lists of links (`•`).
 */
const NOT_A_DESCRIPTION = new RegExp(
  `${NOT_A_DESCRIPTION_PARAGRAPH.source}|\\b(licen[sc]ed?|readme|demo|check out|translations?|changelog|install(ing|ation)?|` +
    `cargo add|cargo\\.toml|stands for|derives? from|pronounced|documentation|versions? (are|is) supported|end of life)\\b|!(note|tip|important|warning|caution)\\b|^[\\w.]+:\\s`,
  'i',
);

/** A description has at least this many words. */
const MIN_DESCRIPTION_WORDS = 3;

function words(text: string): string[] {
  return text.match(/[A-Za-z][A-Za-z'-]*/g) ?? [];
}

/**
 * A sentence that can describe the repository. One ending in a colon introduces a list: it counts only when it
 * says enough on its own (8 words or more) and does not end by announcing examples ("including:", "such as:").
 */
function isDescriptionSentence(sentence: string): boolean {
  const n = words(sentence).length;
  if (n < MIN_DESCRIPTION_WORDS || NOT_A_DESCRIPTION.test(sentence) || sentence.includes('•')) return false;
  // A quotation ("“Any color you like.”") is a motto, not a description.
  if (/^["“'].*["”']$/.test(sentence.trim())) return false;
  if (/:\s*$/.test(sentence)) return n >= 8 && !/\b(including|such as|like|to|following|these|are)\s*:\s*$/i.test(sentence);
  return true;
}

/**
 * The description sentences of a README: from the first prose paragraph that has a descriptive sentence, that
 * sentence and the descriptive ones after it. Markup, badges, headings (markdown, rst, HTML), HTML tables, lists
 * and code are skipped; a blockquote counts as prose (many READMEs put their tagline there). Empty when none.
 */
export function readmeSentences(text: string): string[] {
  const body = text
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/<table[\s\S]*?<\/table>/gi, '\n')
    // Sponsor entries are links around a logo and a slogan; a description is not a link.
    .replace(/<a\b[^>]*>[\s\S]*?<\/a>/gi, ' ')
    .replace(/<h[1-6]\b[\s\S]*?<\/h[1-6]>/gi, '\n')
    .replace(/\r\n?/g, '\n');
  const paragraphs: string[][] = [[]];
  let fenced = false;
  for (const line of body.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      paragraphs.push([]);
      continue;
    }
    if (fenced) continue;
    const raw = line.replace(/^\s*>\s?/, '');
    // A setext (markdown) or reStructuredText title: the line above the underline is a heading, not prose.
    if (/^\s*([=\-~^"'`*+#])\1{2,}\s*$/.test(raw)) paragraphs[paragraphs.length - 1]?.pop();
    if (raw.trim() === '' || isMarkupLine(raw)) {
      if ((paragraphs[paragraphs.length - 1] ?? []).length) paragraphs.push([]);
      continue;
    }
    paragraphs[paragraphs.length - 1]?.push(raw);
  }
  for (const p of paragraphs) {
    const sentences = prose(p.join(' '))
      .split(/(?<=[.!?])\s+(?=[A-Z(`"'])/)
      .map((x) => x.trim())
      .filter(Boolean);
    // A paragraph that thanks sponsors or asks for feedback anywhere is not the description.
    if (sentences.some((x) => NOT_A_DESCRIPTION_PARAGRAPH.test(x))) continue;
    const first = sentences.findIndex(isDescriptionSentence);
    if (first < 0) continue;
    const usable = sentences.slice(first).filter(isDescriptionSentence).map((x) => x.replace(/:\s*$/, '.'));
    if (words(usable.join(' ')).length >= MIN_DESCRIPTION_WORDS) return usable;
  }
  return [];
}

/** A query needs this many words once names are removed; shorter descriptions take the next sentence too. */
export const QUERY_WORDS = 8;

/**
 * The description (README sentences, as found) and the query (the same with names removed): sentences are added
 * while the query has fewer than QUERY_WORDS words.
 */
export function composeDescription(sentences: readonly string[], variants: readonly string[]): { description: string; query: string } {
  const taken: string[] = [];
  let query = '';
  for (const s of sentences) {
    taken.push(s);
    query = removeNames(taken.join(' '), variants);
    if (words(query).length >= QUERY_WORDS) break;
  }
  return { description: taken.join(' '), query };
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The names a repository goes by: its GitHub name and its package names, each also without a language affix
 * (`commander.js` → `commander`, `go-yaml` → `yaml`, `serde_json` also as `serde json`), lower-case, longest first.
 */
export function nameVariants(names: readonly string[]): string[] {
  const out = new Set<string>();
  for (const raw of names) {
    const n = raw.toLowerCase().trim();
    if (!n) continue;
    const base = n.replace(/^@[^/]+\//, '');
    const forms = [base, base.replace(/([.-]?(js|rs|py|go|java))$/, ''), base.replace(/^(go|py|node|rust|java)[.-]/, '')];
    for (const f of forms) {
      if (f.length < 2) continue;
      out.add(f);
      if (/[-_.]/.test(f)) {
        out.add(f.replace(/[-_.]/g, ' '));
        out.add(f.replace(/[-_.]/g, ''));
      }
    }
  }
  return [...out].sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
}

/**
 * `description` with every name removed: whole words, case-insensitive, with a plural or possessive ending
 * (`Koa's`, `UUIDs`), and the punctuation left dangling at the start trimmed.
 */
export function removeNames(description: string, variants: readonly string[]): string {
  let text = description;
  for (const v of variants) {
    const words = v.split(' ').map(escapeRe).join('[\\s_.-]+');
    text = text.replace(new RegExp(`(?<![A-Za-z0-9_])${words}(?:'s|s)?(?![A-Za-z0-9_])`, 'gi'), ' ');
  }
  return text
    .replace(/\(\s*\)/g, ' ')
    .replace(/\s+([,.;:!?])/g, '$1')
    .replace(/\s+/g, ' ')
    .replace(/^[\s,;:.\-–—]+/, '')
    .trim();
}

/** Package names declared by a repository's manifests (in-repo text; these files are never candidates). */
export function manifestNames(files: Readonly<Record<string, string>>): string[] {
  const names: string[] = [];
  const cargo = files['Cargo.toml'];
  if (cargo) {
    const pkg = /\[package\][^[]*?\bname\s*=\s*"([^"]+)"/.exec(cargo);
    if (pkg?.[1]) names.push(pkg[1]);
  }
  const pyproject = files['pyproject.toml'];
  if (pyproject) {
    const project = /\[(?:project|tool\.poetry)\][^[]*?\bname\s*=\s*"([^"]+)"/.exec(pyproject);
    if (project?.[1]) names.push(project[1]);
  }
  const setupCfg = files['setup.cfg'];
  if (setupCfg) {
    const meta = /\[metadata\][^[]*?\bname\s*=\s*(\S+)/.exec(setupCfg);
    if (meta?.[1]) names.push(meta[1]);
  }
  const pkgJson = files['package.json'];
  if (pkgJson) {
    try {
      const name = (JSON.parse(pkgJson) as { name?: unknown }).name;
      if (typeof name === 'string') names.push(name);
    } catch {
      // not JSON: no name from it
    }
  }
  const goMod = files['go.mod'];
  if (goMod) {
    const mod = /^module\s+(\S+)/m.exec(goMod)?.[1];
    const last = mod?.split('/').filter((s) => !/^v\d+$/.test(s)).pop();
    if (last) names.push(last);
  }
  const pom = files['pom.xml'];
  if (pom) {
    const withoutParent = pom.replace(/<parent>[\s\S]*?<\/parent>/, '');
    const artifact = /<artifactId>([^<]+)<\/artifactId>/.exec(withoutParent)?.[1];
    if (artifact) names.push(artifact);
  }
  return names;
}

const README = /^readme(\.(md|markdown|rst|txt))?$/i;
const MANIFESTS = ['Cargo.toml', 'pyproject.toml', 'setup.cfg', 'package.json', 'go.mod', 'pom.xml'];

/** Builds one repository's case from its mirror, or says why it has none. */
export function describeRepo(hint: string, gitDir: string): DescribeCase | string {
  const commit = git(gitDir, ['rev-parse', 'HEAD']).trim();
  const entries: Array<{ path: string; size: number }> = [];
  for (const line of git(gitDir, ['ls-tree', '-r', '-l', '-z', commit]).split('\0')) {
    const m = /^\d+ blob [0-9a-f]+\s+(\d+)\t(.*)$/s.exec(line);
    if (m?.[1] && m[2]) entries.push({ path: m[2], size: Number(m[1]) });
  }
  const readme = entries.map((e) => e.path).filter((p) => !p.includes('/') && README.test(p)).sort()[0];
  if (!readme) return 'no README at the root';
  const sentences = readmeSentences(git(gitDir, ['show', `${commit}:${readme}`]));
  if (sentences.length === 0) return `no descriptive sentence in ${readme}`;
  const manifests: Record<string, string> = {};
  for (const m of MANIFESTS) if (entries.some((e) => e.path === m)) manifests[m] = git(gitDir, ['show', `${commit}:${m}`]);
  const names = [...new Set([hint.split('/')[1] ?? hint, ...manifestNames(manifests)])];
  const { description, query } = composeDescription(sentences, nameVariants(names));
  if (words(query).length < MIN_QUERY_WORDS) return `description too short once names are removed: "${query}"`;
  const files = pickSourceFiles(entries);
  const language = majorityLanguage(files);
  if (!language || files.length === 0) return 'no source files';
  return { repo: hint, language, commit, source: readme, description, query, names, files };
}

function main(): void {
  const args = process.argv.slice(2);
  const opt = (name: string): string | undefined => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const out = opt('--out') ?? join(import.meta.dirname, 'describe-cases.json');
  const root = mirrorRoot(opt('--mirrors'));
  const cases: DescribeCase[] = [];
  for (const hint of DESCRIBE_REPOS) {
    if (isHeldOut(hint)) throw new Error(`${hint} is held out and must not be in DESCRIBE_REPOS`);
    if (NO_README_DESCRIPTION.includes(hint)) {
      console.error(`[describe] ${hint}: skipped, its README has no descriptive sentence (NO_README_DESCRIPTION)`);
      continue;
    }
    const gitDir = findMirror(hint, root);
    if (!gitDir) {
      console.error(`[describe] no mirror for ${hint} under ${root}; skipped`);
      continue;
    }
    const c = describeRepo(hint, gitDir);
    if (typeof c === 'string') {
      console.error(`[describe] ${hint}: skipped, ${c}`);
      continue;
    }
    console.error(`[describe] ${hint} (${c.language}, ${c.files.length} files): ${c.query}`);
    cases.push(c);
  }
  writeFileSync(out, JSON.stringify(cases, null, 2) + '\n');
  console.error(`[describe] wrote ${cases.length} cases to ${out}`);
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  try {
    main();
  } catch (err) {
    console.error(`[describe] ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  }
}
