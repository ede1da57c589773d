/**
 * DeepCode's call pattern, reproduced for comparison (from its code_indexer.py as quoted in
 * /work/shared/seeds/001_*.txt): one pre-filter call per repository, then per file an analysis call (file
 * name and the first 3,000 characters, a JSON format described in prose) and a relationship call (that
 * analysis plus the target structure), under an asyncio.Semaphore of `max_concurrent_files` (5) with
 * `request_delay × 0.5` slept inside the semaphore before each file but the first. Its prompts carry no
 * JSON schema, so the fake server answers them through `deepcodeRespond`, from schemas of the shapes its
 * prompts ask for, synthesised the same way as CodeRAG's answers.
 */
import type { FakeRequest } from '../../tests/support/fakeLlmServer.js';
import { sampleFromSchema } from '../../tests/support/schemaSample.js';

export const ANALYSIS_MARK = 'Analyze this code file and provide a structured summary';
export const RELATIONSHIP_MARK = 'Analyze the relationship between this existing code file and the target project structure';
export const PREFILTER_MARK = 'Select the files of this repository relevant to the target project structure';

const list = { type: 'array', items: { type: 'string', minLength: 4, maxLength: 40 }, minItems: 3, maxItems: 6 };
const ANALYSIS_SCHEMA = {
  type: 'object',
  required: ['file_type', 'main_functions', 'key_concepts', 'dependencies', 'summary'],
  properties: { file_type: { type: 'string', minLength: 20, maxLength: 60 }, main_functions: list, key_concepts: list, dependencies: list, summary: { type: 'string', minLength: 120, maxLength: 260 } },
};
const RELATIONSHIP_SCHEMA = {
  type: 'object',
  required: ['relationships'],
  properties: {
    relationships: {
      type: 'array', minItems: 1, maxItems: 2,
      items: {
        type: 'object',
        required: ['target_file_path', 'relationship_type', 'confidence_score', 'helpful_aspects', 'potential_contributions', 'usage_suggestions'],
        properties: {
          target_file_path: { type: 'string' }, relationship_type: { enum: ['direct_match', 'partial_match', 'reference', 'utility'] },
          confidence_score: { type: 'number', minimum: 0.3, maximum: 1 }, helpful_aspects: list, potential_contributions: list,
          usage_suggestions: { type: 'string', minLength: 60, maxLength: 160 },
        },
      },
    },
  },
};
const PREFILTER_SCHEMA = { type: 'object', required: ['relevant_files'], properties: { relevant_files: { type: 'array', items: { type: 'string' }, maxItems: 0 } } };

/** The fake server's answers to DeepCode's prompts; undefined for anything else. */
export function deepcodeRespond(req: FakeRequest): unknown {
  if (req.prompt.includes(ANALYSIS_MARK)) return JSON.stringify(sampleFromSchema(ANALYSIS_SCHEMA, req.prompt));
  if (req.prompt.includes(RELATIONSHIP_MARK)) return JSON.stringify(sampleFromSchema(RELATIONSHIP_SCHEMA, req.prompt));
  if (req.prompt.includes(PREFILTER_MARK)) return JSON.stringify(sampleFromSchema(PREFILTER_SCHEMA, req.prompt));
  return undefined;
}

export const SYSTEM_PROMPT = 'You are a code analysis expert. Provide precise, structured analysis of code relationships and similarities.';

export function analysisPrompt(fileName: string, content: string, maxContentLength = 3000): string {
  const excerpt = content.slice(0, maxContentLength);
  const suffix = content.length > maxContentLength ? '\n... (truncated)' : '';
  return `
${ANALYSIS_MARK}:

File: ${fileName}
Content:
\`\`\`
${excerpt}${suffix}
\`\`\`

Please provide analysis in this JSON format:
{
    "file_type": "description of what type of file this is",
    "main_functions": ["list", "of", "main", "functions", "or", "classes"],
    "key_concepts": ["important", "concepts", "algorithms", "patterns"],
    "dependencies": ["external", "libraries", "or", "imports"],
    "summary": "2-3 sentence summary of what this file does"
}

Focus on the core functionality and potential reusability.
`;
}

export interface DeepcodeSummary {
  file_path: string;
  file_type: string;
  main_functions: string[];
  key_concepts: string[];
  summary: string;
}

export function relationshipPrompt(s: DeepcodeSummary, targetStructure: string): string {
  return `
${RELATIONSHIP_MARK}.

Existing File Analysis:
- Path: ${s.file_path}
- Type: ${s.file_type}
- Functions: ${s.main_functions.join(', ')}
- Concepts: ${s.key_concepts.join(', ')}
- Summary: ${s.summary}

Target Project Structure:
${targetStructure}

Available relationship types (with priority weights):
- direct_match (priority: 1.0)
- partial_match (priority: 0.8)
- reference (priority: 0.6)
- utility (priority: 0.4)

Identify potential relationships and provide analysis in this JSON format:
{
    "relationships": [
        {
            "target_file_path": "path/in/target/structure",
            "relationship_type": "direct_match|partial_match|reference|utility",
            "confidence_score": 0.0-1.0,
            "helpful_aspects": ["specific", "aspects", "that", "could", "help"],
            "potential_contributions": ["how", "this", "could", "contribute"],
            "usage_suggestions": "detailed suggestion on how to use this file"
        }
    ]
}

Consider the priority weights when determining relationship types. Higher weight types should be preferred when multiple types apply.
Only include relationships with confidence > 0.3. Focus on concrete, actionable connections.
`;
}

export function prefilterPrompt(files: readonly string[], targetStructure: string): string {
  return `${PREFILTER_MARK}.\n\nTarget Project Structure:\n${targetStructure}\n\nFiles:\n${files.join('\n')}\n\nAnswer in JSON: {"relevant_files": [...]} (an empty list keeps every file).\n`;
}
