/**
 * A provider's error message loses what it quotes from the request before it becomes
 * evidence: quoting fields (vLLM / pydantic `input`, `input_value`), long quoted text, runs
 * of the request's own strings; a quote the provider cut open drops the message (undefined).
 */
import { describe, expect, it } from 'vitest';
import { requestStringsOf, withoutRequestText } from '@breakerbox/protocol';

const PROMPT = 'Write a limerick about the ACME-PROMPT-MARKER merger for the board';
const body = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'system', content: 'You are terse.' }, { role: 'user', content: PROMPT }] });

describe('withoutRequestText', () => {
  it('cuts the value of quoting fields, whatever their quotes or nesting, and keeps the provider\'s words', () => {
    expect(withoutRequestText(`[{'type': 'string_too_long', 'loc': ('body','messages',0,'content'), 'input': '${PROMPT}', 'ctx': {'max_length': 10}}]`))
      .toBe(`[{'type': 'string_too_long', 'loc': ('body','messages',0,'content'), 'input': '[redacted]', 'ctx': {'max_length': 10}}]`);
    expect(withoutRequestText(`Input should be a valid string [type=string_type, input_value={'role': 'user', 'content': ['${PROMPT}']}, input_type=dict]`))
      .toBe('Input should be a valid string [type=string_type, input_value=[redacted], input_type=dict]');
    expect(withoutRequestText(`{"detail": [{"msg": "too long", "input": "${PROMPT.replace(/ /g, '\\" ')}"}]}`)).toBe('{"detail": [{"msg": "too long", "input": "[redacted]"}]}');
  });

  it('cuts text between quotes longer than a few words, and keeps short quoted names and apostrophes', () => {
    expect(withoutRequestText(`Your message '${PROMPT}' was flagged`)).toBe("Your message '[redacted]' was flagged");
    expect(withoutRequestText(`Invalid 'messages[0].content': string too long. Expected a string with maximum length 10.`)).toBe(`Invalid 'messages[0].content': string too long. Expected a string with maximum length 10.`);
    const context = "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.";
    expect(withoutRequestText(context)).toBe(context);
  });

  it('cuts any run of the request\'s own strings, quoted or not, and not its settings (the model name)', () => {
    const strings = requestStringsOf(body);
    expect(strings).toEqual(['You are terse.', PROMPT]);
    expect(withoutRequestText(`Flagged: ${PROMPT} (model gpt-4o-mini)`, strings)).toBe('Flagged: [redacted] (model gpt-4o-mini)');
    expect(withoutRequestText(`Flagged near "...the ACME-PROMPT-MARKER merger for..."`, strings)).not.toContain('ACME-PROMPT-MARKER');
    expect(withoutRequestText(`bad system prompt You are terse.`, strings)).toBe('bad system prompt [redacted]');
  });

  it('cannot decide when the provider cut its message inside a quote: the message is dropped', () => {
    expect(withoutRequestText(`[{'type': 'string_too_long', 'input': '${PROMPT.slice(0, 30)}`)).toBeUndefined();
    expect(withoutRequestText(`Your message "${PROMPT.slice(0, 40)}`)).toBeUndefined();
    expect(withoutRequestText(`Input should be a list [input_value={'role': 'user', 'content': '${PROMPT.slice(0, 20)}`)).toBeUndefined();
  });
});
