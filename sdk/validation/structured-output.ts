/**
 * The structured output of a provider's JSON answer, per endpoint family, and the JSON
 * Schema its request declared — what the fetch wrapper's `validate` checks:
 * - chat: the first tool call's `arguments`, else `message.content`, parsed as JSON; the
 *   schema is that tool's `function.parameters`, else `response_format.json_schema.schema`;
 * - Responses: the first `function_call`'s `arguments`, else the message's `output_text`
 *   parts, parsed; the schema is that tool's `parameters`, else `text.format.schema`;
 * - Anthropic messages: the first `tool_use` block's `input`, else the text blocks parsed;
 *   the schema is that tool's `input_schema`, else `output_config.format.schema`.
 */
import { jsonSchemaProblem, type JsonSchema } from './json-schema.ts';
import { outputProblem, type OutputValidator } from './output-validator.ts';

type Obj = Record<string, unknown>;

/** How an operation declares its answers are validated (the fetch option `validate`): a validator, or `'request'` — the schema the request declared. */
export type DeclaredValidation = OutputValidator | 'request';

/** An answer's structured output: its value and the schema the request declared for it. */
export type StructuredOutput = { ok: true; value: unknown; requestSchema: JsonSchema | undefined } | { ok: false; problem: string };

const asObj = (v: unknown): Obj => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {});
const asArr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const schemaOf = (v: unknown): JsonSchema | undefined => (typeof v === 'object' && v !== null ? (v as JsonSchema) : undefined);

function parsed(text: unknown, what: string, requestSchema: JsonSchema | undefined): StructuredOutput {
  if (typeof text !== 'string') return { ok: false, problem: `the answer has no ${what}` };
  try {
    return { ok: true, value: JSON.parse(text), requestSchema };
  } catch {
    return { ok: false, problem: `the answer's ${what} is not JSON` };
  }
}

/** Families whose answers carry a structured output. */
export function hasStructuredOutput(family: string): boolean {
  return family === 'chat' || family === 'responses' || family === 'messages';
}

/** The structured output of a JSON answer of `family` (see the module comment). */
export function structuredOutputOf(family: string, body: unknown, request: Obj): StructuredOutput {
  const b = asObj(body);
  if (family === 'chat') {
    const message = asObj(asObj(asArr(b.choices)[0]).message);
    const call = asObj(asArr(message.tool_calls)[0]);
    const fn = asObj(call.function);
    if (typeof fn.name === 'string') {
      const tool = asArr(request.tools).map((t) => asObj(asObj(t).function)).find((f) => f.name === fn.name);
      return parsed(fn.arguments, 'tool-call arguments', schemaOf(tool?.parameters));
    }
    return parsed(message.content, 'content', schemaOf(asObj(asObj(request.response_format).json_schema).schema));
  }
  if (family === 'responses') {
    const items = asArr(b.output).map(asObj);
    const call = items.find((i) => i.type === 'function_call');
    if (call) {
      const tool = asArr(request.tools).map(asObj).find((t) => t.type === 'function' && t.name === call.name);
      return parsed(call.arguments, 'function-call arguments', schemaOf(tool?.parameters));
    }
    const text = items
      .filter((i) => i.type === 'message')
      .flatMap((i) => asArr(i.content).map(asObj))
      .filter((c) => c.type === 'output_text')
      .map((c) => c.text)
      .join('');
    return parsed(text || undefined, 'output text', schemaOf(asObj(asObj(request.text).format).schema));
  }
  const blocks = asArr(b.content).map(asObj);
  const use = blocks.find((c) => c.type === 'tool_use');
  if (use) {
    const tool = asArr(request.tools).map(asObj).find((t) => t.name === use.name);
    return { ok: true, value: use.input, requestSchema: schemaOf(tool?.input_schema) };
  }
  const text = blocks.filter((c) => c.type === 'text').map((c) => c.text).join('');
  return parsed(text || undefined, 'text', schemaOf(asObj(asObj(request.output_config).format).schema));
}

/**
 * Why a JSON answer of `family` fails `validate` (`'request'`: the schema its request
 * declared, when it declared one), or undefined when it passes.
 */
export async function structuredAnswerProblem(validate: DeclaredValidation, family: string, body: unknown, request: Obj): Promise<string | undefined> {
  const out = structuredOutputOf(family, body, request);
  if (!out.ok) return out.problem;
  if (validate === 'request') return out.requestSchema === undefined ? undefined : jsonSchemaProblem(out.requestSchema, out.value);
  return outputProblem(validate, out.value);
}
