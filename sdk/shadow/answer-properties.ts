/**
 * What a shadow comparison looks at in an answer — its properties, never its text: did it
 * succeed and how did it fail, did it refuse, is its text valid JSON, does the operation's
 * validator accept it, how long, how many tokens, what cost. Extracted from the answer
 * bodies of chat completions, Responses and Anthropic messages (the official clients' types).
 */
import type { ErrorClass } from '@breakerbox/protocol';

/** One side's answer, as compared. */
export interface AnswerProperties {
  ok: boolean;
  /** How it failed (a failed side only; `truncated` when it stopped on its limit). */
  errorClass?: ErrorClass;
  refusal: boolean;
  /** Whether the answer's text parses as JSON; undefined when there is no text to check (a failure, a stream). */
  json?: boolean;
  /** Whether the operation's validator accepted the answer; undefined without a validator or an answer. */
  validation?: boolean;
  latencyMs: number;
  ttftMs?: number;
  outputTokens: number;
  costUsd: number;
}

/**
 * An operation's answer validator (declared by the operation; the SDK's validators API):
 * given the decoded answer body, true when it is acceptable. A validator that throws fails.
 */
export type AnswerValidator = (value: unknown) => boolean;

/** Finish reasons that are refusals (chat `content_filter`, Anthropic `refusal`). */
const REFUSAL_FINISH = new Set(['content_filter', 'refusal']);

/** Whether a finish reason is a refusal. */
export function refusalFinish(finish: string | undefined): boolean {
  return finish !== undefined && REFUSAL_FINISH.has(finish);
}

/** Whether the request asks for a JSON answer (chat `response_format`, Responses `text.format`). */
export function requestAsksJson(body: Record<string, unknown>): boolean {
  const rf = (body.response_format as { type?: unknown } | undefined)?.type;
  const tf = ((body.text as { format?: { type?: unknown } } | undefined)?.format)?.type;
  return [rf, tf].some((t) => t === 'json_object' || t === 'json_schema');
}

type Obj = Record<string, unknown>;
const asObj = (v: unknown): Obj | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined);

/** The answer's text and whether it holds a refusal, per family. */
function textAndRefusal(family: string, body: Obj): { text?: string; refusal: boolean } {
  if (family === 'messages') {
    const blocks = Array.isArray(body.content) ? body.content : [];
    const text = blocks.map((b) => asObj(b)).filter((b) => b?.type === 'text').map((b) => String(b!.text ?? '')).join('');
    return { text: blocks.length ? text : undefined, refusal: body.stop_reason === 'refusal' };
  }
  if (family === 'responses') {
    let text: string | undefined;
    let refusal = false;
    for (const item of Array.isArray(body.output) ? body.output : []) {
      for (const c of Array.isArray(asObj(item)?.content) ? (asObj(item)!.content as unknown[]) : []) {
        const part = asObj(c);
        if (part?.type === 'output_text') text = (text ?? '') + String(part.text ?? '');
        if (part?.type === 'refusal') refusal = true;
      }
    }
    return { text, refusal };
  }
  const choice = asObj(Array.isArray(body.choices) ? body.choices[0] : undefined);
  const message = asObj(choice?.message);
  const refusal = (typeof message?.refusal === 'string' && message.refusal.length > 0) || choice?.finish_reason === 'content_filter';
  return { text: typeof message?.content === 'string' ? message.content : undefined, refusal };
}

function parsesAsJson(text: string): boolean {
  const t = text.trim();
  if (!(t.startsWith('{') || t.startsWith('['))) return false;
  try {
    JSON.parse(t);
    return true;
  } catch {
    return false;
  }
}

/** Refusal, JSON validity and the validator's verdict of a decoded non-streamed answer. */
export function bodyProperties(family: string, body: unknown, validate: AnswerValidator | undefined): Pick<AnswerProperties, 'refusal' | 'json' | 'validation'> {
  const b = asObj(body);
  if (!b) return { refusal: false, json: false, ...(validate ? { validation: false } : {}) };
  const { text, refusal } = textAndRefusal(family, b);
  const out: Pick<AnswerProperties, 'refusal' | 'json' | 'validation'> = { refusal };
  if (text !== undefined) out.json = parsesAsJson(text);
  if (validate) {
    try {
      out.validation = validate(body) === true;
    } catch {
      out.validation = false;
    }
  }
  return out;
}

/**
 * Folds what an answer's decoded body says into `p`: its refusal, and for a successful
 * answer its JSON validity and the validator's verdict.
 */
export function addBodyProperties(p: AnswerProperties, family: string, decoded: unknown, validate: AnswerValidator | undefined): void {
  const b = bodyProperties(family, decoded, p.ok ? validate : undefined);
  p.refusal ||= b.refusal;
  if (p.ok && b.json !== undefined) p.json = b.json;
  if (p.ok && b.validation !== undefined) p.validation = b.validation;
}
