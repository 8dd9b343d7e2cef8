/**
 * What a shadow comparison looks at in an answer — its properties, never its text: did it
 * succeed and how did it fail, did it refuse, is its text valid JSON, does the operation's
 * validator accept it, how long, how many tokens, what cost. Extracted from the answer
 * bodies of chat completions, Responses and Anthropic messages (the official clients' types).
 *
 * Validation is the operation's own (the fetch option `validate`, run by the one check the
 * caller's answers go through, `structuredAnswerProblem`): a whole non-streamed answer that
 * fails it is an `invalid_output` failure on either side of a pair, as the caller would
 * have seen it.
 */
import type { ErrorClass } from '@breakerbox/protocol';
import { hasStructuredOutput, structuredAnswerProblem, type DeclaredValidation } from '../validation/structured-output.ts';

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

/** Refusal and JSON validity of a decoded non-streamed answer. */
export function bodyProperties(family: string, body: unknown): Pick<AnswerProperties, 'refusal' | 'json'> {
  const b = asObj(body);
  if (!b) return { refusal: false, json: false };
  const { text, refusal } = textAndRefusal(family, b);
  const out: Pick<AnswerProperties, 'refusal' | 'json'> = { refusal };
  if (text !== undefined) out.json = parsesAsJson(text);
  return out;
}

/** Folds what an answer's decoded body says into `p`: its refusal, and for a successful answer its JSON validity. */
export function addBodyProperties(p: AnswerProperties, family: string, decoded: unknown): void {
  const b = bodyProperties(family, decoded);
  p.refusal ||= b.refusal;
  if (p.ok && b.json !== undefined) p.json = b.json;
}

/**
 * Whether the operation's validation applies to an answer of `family`: the caller's path
 * (`sendAttempt`) validates whole non-streamed answers of families with a structured output.
 */
export function validates(validate: DeclaredValidation | undefined, family: string, stream: boolean): validate is DeclaredValidation {
  return validate !== undefined && !stream && hasStructuredOutput(family);
}

/**
 * The primary side's verdict, read from how its call ended: the caller's path already ran the
 * validator, so a whole answer passed it and an `invalid_output` failure did not; other
 * failures were never validated (undefined).
 */
export function primaryValidation(declared: boolean, ok: boolean, cls: ErrorClass | undefined): boolean | undefined {
  if (!declared) return undefined;
  if (ok) return true;
  return cls === 'invalid_output' ? false : undefined;
}

/**
 * Runs the operation's validator on the candidate's whole answer (`p.ok`), as the caller's
 * path would have: a refused answer becomes an `invalid_output` failure, its tokens and cost
 * kept. Asynchronous like the validator; the mirror's deadline bounds it.
 */
export async function validateCandidate(p: AnswerProperties, validate: DeclaredValidation, family: string, answer: unknown, request: Record<string, unknown>): Promise<void> {
  if (!p.ok || answer === undefined) return;
  const problem = await structuredAnswerProblem(validate, family, answer, request);
  p.validation = problem === undefined;
  if (!p.validation) {
    p.ok = false;
    p.errorClass = 'invalid_output';
  }
}
