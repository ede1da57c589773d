/**
 * The text of a planning turn's request: the author's query, their documents and the index overview, the
 * conversation so far, and what this turn may answer (anything, or only a final structure).
 */
import { loadPrompt, renderPrompt, type PromptTemplate } from '../llm/prompts.js';
import type { PlanState } from './state.js';

export interface PlanPrompts {
  plan: PromptTemplate;
  turn: PromptTemplate;
  final: PromptTemplate;
}

export function loadPlanPrompts(dir?: string): PlanPrompts {
  return { plan: loadPrompt('plan', dir), turn: loadPrompt('plan_turn', dir), final: loadPrompt('plan_final', dir) };
}

export function renderPlanPrompt(prompts: PlanPrompts, state: PlanState, final: boolean): string {
  return renderPrompt(prompts.plan, {
    query: state.query,
    context: state.context,
    conversation: renderConversation(state),
    instruction: renderPrompt(final ? prompts.final : prompts.turn, {}),
  });
}

function renderConversation(state: PlanState): string {
  if (state.turns.length === 0) return '(nothing yet: this is the first turn)';
  const lines: string[] = [];
  for (const { model, answer } of state.turns) {
    if (model.kind === 'question') lines.push(`You asked: ${model.message}`);
    else {
      lines.push(`You proposed: ${model.message}`);
      for (const f of model.files) lines.push(`  - ${f.path}: ${f.purpose}${f.draws_on.length ? ` (draws on: ${f.draws_on.join(', ')})` : ''}`);
    }
    if (answer !== null) lines.push(`The author answered: ${answer}`);
  }
  return lines.join('\n');
}
