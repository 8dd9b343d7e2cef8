/**
 * Requests the real APIs refuse with 400 before generating anything, as the fake provider
 * mirrors them: `max_tokens` sent to an OpenAI reasoning model over chat, a Responses
 * `max_output_tokens` below the API's minimum of 16 (when `responsesMinOutputTokens` asks), Anthropic thinking whose budget does
 * not fit under `max_tokens`, embeddings without input.
 */
import type { Api } from './fake-provider-bodies.ts';
import type { AnswerDefaults } from './fake-provider-answer.ts';

/** The 400 error body fields for a request the API refuses, or undefined. */
export function requestRefusal(api: Api, b: Record<string, unknown>, o: AnswerDefaults): { type: string; code?: string | null; message: string } | undefined {
  if (api === 'chat' && b.max_tokens !== undefined && o.reasoningModels(String(b.model ?? ''))) {
    return {
      type: 'invalid_request_error',
      code: 'unsupported_parameter',
      message: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
    };
  }
  if (api === 'responses' && typeof b.max_output_tokens === 'number' && b.max_output_tokens < o.responsesMinOutputTokens) {
    return {
      type: 'invalid_request_error',
      code: 'integer_below_min_value',
      message: `Invalid 'max_output_tokens': integer below minimum value. Expected a value >= ${o.responsesMinOutputTokens}, but got ${b.max_output_tokens} instead.`,
    };
  }
  if (api === 'messages') {
    const t = b.thinking as { type?: unknown; budget_tokens?: unknown } | undefined;
    if (t?.type === 'enabled' && typeof t.budget_tokens === 'number' && typeof b.max_tokens === 'number' && b.max_tokens <= t.budget_tokens) {
      return { type: 'invalid_request_error', message: '`max_tokens` must be greater than `thinking.budget_tokens`.' };
    }
  }
  if (api === 'embeddings' && (b.input === undefined || b.input === '' || (Array.isArray(b.input) && b.input.length === 0))) {
    return { type: 'invalid_request_error', code: null, message: "'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference." };
  }
  return undefined;
}
