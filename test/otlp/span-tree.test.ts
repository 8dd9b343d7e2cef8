/**
 * Which spans of a trace are model calls (`spansToTallies`): agent, step, tool and workflow
 * spans are skipped unread, never refused; a model-call span around a model-call span of the
 * same key counts once (the inner one), whether the two arrive in one export or the child
 * first; the AI SDK's older `ai.*` parents count only through their `.doGenerate` child.
 */
import { describe, expect, it } from 'vitest';
import { spansToTallies } from '../../server/otlp/spans-to-windows.ts';
import { ModelCallParents } from '../../server/otlp/model-call-parents.ts';
import type { Attributes, ResourceSpans, Span } from '../../server/otlp/model.ts';

const NOW = Date.UTC(2026, 11, 3, 12);
const BOUNDS = { oldest: NOW - 3_600_000, newest: NOW + 60_000 };
const CHAT = { 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'openai', 'gen_ai.request.model': 'gpt-4.1-nano' };

let next = 0;
function span(attributes: Attributes, parent?: Span, kind = 3): Span {
  const id = (++next).toString(16).padStart(16, '0');
  return {
    traceId: 'a'.repeat(32), spanId: id, parentSpanId: parent?.spanId ?? '', name: String(attributes['gen_ai.operation.name'] ?? 'span'), kind,
    startNanos: (NOW - 2_000) * 1e6, endNanos: (NOW - 1_000) * 1e6, attributes, events: [], statusCode: 0, statusMessage: '', traceState: '',
  };
}
const resource = (spans: Span[]): ResourceSpans[] => [{ resource: { 'service.name': 'app', 'service.instance.id': 'pod-1' }, spans }];
const counted = (m: ReturnType<typeof spansToTallies>) => Object.fromEntries([...m.tallies.values()].map((t) => [`${t.key.endpoint}/${t.key.model}`, t.calls]));

describe('model calls in a span tree', () => {
  it('skips invoke_agent, agent_step, execute_tool and OpenInference AGENT / CHAIN / TOOL spans without refusing them', () => {
    const agent = span({ ...CHAT, 'gen_ai.operation.name': 'invoke_agent' }, undefined, 1);
    const step = span({ 'gen_ai.operation.name': 'agent_step', 'gen_ai.request.model': 'gpt-4.1-nano' }, agent, 1);
    const chat = span(CHAT, step);
    const tool = span({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'search' }, chat, 1);
    const oi = ['AGENT', 'CHAIN', 'TOOL'].map((k) => span({ 'openinference.span.kind': k, 'llm.model_name': 'gpt-4.1-nano', 'llm.provider': 'openai' }, undefined, 1));
    const m = spansToTallies(resource([agent, step, chat, tool, ...oi]), BOUNDS);
    expect(counted(m)).toEqual({ 'chat/gpt-4.1-nano': 1 });
    expect(m.rejected.count).toBe(0);
  });

  it('counts a model-call span wrapping one of the same key once, in one export or when the child came first', () => {
    const outer = span({ ...CHAT, 'gen_ai.operation.name': 'embeddings', 'gen_ai.request.model': 'text-embedding-3-small' });
    const inner = span({ ...CHAT, 'gen_ai.operation.name': 'embeddings', 'gen_ai.request.model': 'text-embedding-3-small' }, outer);
    expect(counted(spansToTallies(resource([outer, inner]), BOUNDS))).toEqual({ 'embeddings/text-embedding-3-small': 1 });

    const parents = new ModelCallParents();
    expect(counted(spansToTallies(resource([inner]), BOUNDS, parents))).toEqual({ 'embeddings/text-embedding-3-small': 1 });
    expect(spansToTallies(resource([outer]), BOUNDS, parents).tallies.size).toBe(0);
  });

  it('counts both when the wrapped call is another key (a router span naming the model it chose)', () => {
    const outer = span({ ...CHAT, 'gen_ai.request.model': 'auto' });
    const inner = span(CHAT, outer);
    expect(counted(spansToTallies(resource([outer, inner]), BOUNDS))).toEqual({ 'chat/auto': 1, 'chat/gpt-4.1-nano': 1 });
  });

  it("reads the AI SDK's older ai.* spans: ai.generateText is skipped, ai.generateText.doGenerate counts", () => {
    const old = { 'gen_ai.system': 'openai.chat', 'gen_ai.request.model': 'gpt-4o-mini' };
    const root = span({ ...old, 'ai.operationId': 'ai.generateText' }, undefined, 1);
    const call = span({ ...old, 'ai.operationId': 'ai.generateText.doGenerate' }, root);
    const streamRoot = span({ ...old, 'ai.operationId': 'ai.streamText' }, undefined, 1);
    const streamCall = span({ ...old, 'ai.operationId': 'ai.streamText.doStream' }, streamRoot);
    const tool = span({ 'ai.operationId': 'ai.toolCall', 'ai.toolCall.name': 'search' }, root, 1);
    const m = spansToTallies(resource([root, call, streamRoot, streamCall, tool]), BOUNDS);
    expect([...m.tallies.values()].map((t) => t.calls)).toEqual([2]);
    expect(m.rejected.count).toBe(0);
  });

  it('forgets the oldest remembered parents past its capacity', () => {
    const p = new ModelCallParents(2);
    p.add('t', 'a', 'k');
    p.add('t', 'b', 'k');
    p.add('t', 'c', 'k');
    expect([p.size, p.wraps('t', 'a', 'k'), p.wraps('t', 'c', 'k')]).toEqual([2, false, true]);
  });
});
