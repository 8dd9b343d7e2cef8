/**
 * Judges a well-formed answer against its target's canary (issue 39). A miss is a
 * `wrong_answer`: the API answered, whole and in shape, but not what the fixed task's
 * answer is. The reason says what was expected and how the answer missed it; the answer's
 * text (or tool call) is the evidence, cut and redacted by the prober before it leaves.
 */
import { deepCompareStrict } from '@cfworker/json-schema';
import type { Canary } from './canary-config.ts';
import type { Answer } from './adapters/types.ts';

/** How an answer missed its canary. */
export interface CanaryMiss {
  reason: string;
  /** The answer as received (text, else the tool calls as JSON): NOT cut or redacted yet. */
  received: string;
}

/** Punctuation and quotes a model wraps a one-word answer in ("OK.", `"OK"`, `**OK**`). */
const WRAPPING = /^[\p{P}\p{S}\s]+|[\p{P}\p{S}\s]+$/gu;

/** The words of a text with the wrapping of a one-word answer removed. */
export function bareWord(text: string): string {
  return text.replace(WRAPPING, '');
}

/** The evidence: the tool calls when the canary asked for one (or no text came), else the text. */
function received(a: Answer, wantsCall: boolean): string {
  if (a.toolCalls.length === 0 || (!wantsCall && a.text.trim() !== '')) return a.text;
  return JSON.stringify(a.toolCalls.map((c) => ({ name: c.name, arguments: c.arguments })));
}

/** Undefined when the answer is right, else how it missed. */
export function judgeCanary(canary: Canary, answer: Answer): CanaryMiss | undefined {
  const e = canary.expect;
  const miss = (reason: string): CanaryMiss => ({ reason, received: received(answer, e.kind === 'tool_call') });
  switch (e.kind) {
    case 'word': {
      const got = bareWord(answer.text);
      const right = e.caseFold ? got.toLowerCase() === e.word.toLowerCase() : got === e.word;
      return right ? undefined : miss(`expected the word ${JSON.stringify(e.word)}${e.caseFold ? ' (any case)' : ''}, got another answer`);
    }
    case 'regex':
      return e.regex.test(answer.text) ? undefined : miss(`expected text matching /${e.source}/, got text that does not match`);
    case 'json_schema': {
      let value: unknown;
      try {
        value = JSON.parse(answer.text) as unknown;
      } catch {
        return miss('expected JSON matching the canary schema, got text that is not JSON');
      }
      const result = e.validator.validate(value);
      if (result.valid) return undefined;
      // The deepest error says most ("#/sum: …" rather than "#: property sum does not match").
      const deepest = result.errors.reduce<(typeof result.errors)[number] | undefined>((d, x) => (!d || x.instanceLocation.length > d.instanceLocation.length ? x : d), undefined);
      return miss(`expected JSON matching the canary schema, got JSON failing it${deepest ? ` at ${deepest.instanceLocation || '#'}: ${deepest.error}` : ''}`);
    }
    default: {
      const call = answer.toolCalls[0];
      if (!call) return miss(`expected a call of ${e.name}, got no tool call`);
      if (call.name !== e.name) return miss(`expected a call of ${e.name}, got a call of ${call.name}`);
      if (typeof call.arguments === 'string') return miss(`expected a call of ${e.name}, got arguments that are not JSON`);
      if (!deepCompareStrict(call.arguments, e.arguments)) return miss(`expected ${e.name}(${JSON.stringify(e.arguments)}), got other arguments`);
      return undefined;
    }
  }
}
