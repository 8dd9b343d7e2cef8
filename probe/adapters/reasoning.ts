/**
 * Reasoning models (OpenAI `gpt-5*`, `o1*`, `o3*`, `o4*`) think before they answer and
 * bill the hidden reasoning as output tokens. Their APIs refuse `max_tokens` (400
 * `unsupported_parameter`: "Use 'max_completion_tokens' instead"), and a small budget is
 * spent on thinking alone: the answer ends `length` with no text. A probe of one therefore
 * sends `max_completion_tokens` (`max_output_tokens` on the Responses API), a low
 * `reasoning_effort`, and a budget large enough to finish; it pays only for what is used.
 */
import type { FieldReader } from '../config-fields.ts';
import { DEFAULT_MAX_TOKENS, type TokenBudget } from './chat-request.ts';

/** The efforts the official client's `ReasoningEffort` type names. */
export const REASONING_EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh'] as const;
export type ReasoningEffort = (typeof REASONING_EFFORTS)[number];

/**
 * The effort a probe asks for unless told otherwise: `low` is accepted by every reasoning
 * model (`minimal` is refused by the o-series, `none` by gpt-5 and the o-series) and
 * keeps the thinking, hence the cost, small.
 */
export const DEFAULT_REASONING_EFFORT: ReasoningEffort = 'low';

/**
 * The output budget of a reasoning probe. With effort `low` and the one-word prompt a
 * model is expected to think for tens to a couple of hundred tokens (an estimate, not a
 * measurement); 1 024 leaves room for a long day and is only a ceiling: the probe is
 * billed for the tokens the answer reports.
 */
export const DEFAULT_REASONING_MAX_TOKENS = 1_024;

/** Model ids that are reasoning models, after any `vendor/` prefix (OpenRouter, gateways). */
const REASONING_MODEL = /^(gpt-5|o1|o3|o4)([-.:_]|$)/i;

/** True when `model` is known to be a reasoning model by its name. */
export function isReasoningModel(model: string): boolean {
  const bare = model.slice(model.lastIndexOf('/') + 1);
  return REASONING_MODEL.test(bare);
}

/** How a probe talks to the model: the dialect, and the effort when it reasons. */
export interface ReasoningChoice {
  reasoning: boolean;
  /** Sent only when `reasoning`. */
  effort: ReasoningEffort;
}

/**
 * Reads `reasoning` (true/false; default: by the model's name, for deployments whose
 * name says nothing) and `reasoning_effort` (sent only to a reasoning model).
 */
export function readReasoning(r: FieldReader, model: string): ReasoningChoice {
  const explicit = r.boolean('reasoning');
  const effort = r.string('reasoning_effort', {
    pattern: new RegExp(`^(${REASONING_EFFORTS.join('|')})$`),
    hint: `must be one of ${REASONING_EFFORTS.join(', ')}`,
  }) as ReasoningEffort | undefined;
  const reasoning = explicit ?? isReasoningModel(model);
  if (effort !== undefined && !reasoning) {
    r.problem(
      'reasoning_effort',
      explicit === false
        ? 'is only sent to a reasoning model, and reasoning is false'
        : `is only sent to a reasoning model; "${model}" is not one by its name: add reasoning: true if it is`,
    );
  }
  return { reasoning, effort: effort ?? DEFAULT_REASONING_EFFORT };
}

/** The default budget: room to think for a reasoning model, a few tokens otherwise; `min` is the API's floor. */
export function budgetFor(choice: ReasoningChoice, min = 1): TokenBudget {
  return { defaultFor: () => Math.max(min, choice.reasoning ? DEFAULT_REASONING_MAX_TOKENS : DEFAULT_MAX_TOKENS), min };
}
