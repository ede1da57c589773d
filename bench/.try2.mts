import { benchLlm, LLM_FULL } from './llm.ts';
import { renderTable } from './lib/figures.ts';
const extra = JSON.parse(process.argv[2] ?? '{}');
const r = await benchLlm({ ...LLM_FULL, warmups: 0, reps: 1, faultReps: 0, faultFiles: 300, realistic: null, rateLimit: null, ...extra, log: (l) => process.stderr.write(l + '\n') });
process.stdout.write(renderTable(r.figures) + '\n' + r.findings.join('\n') + '\n');
