import { Type } from '@sinclair/typebox';
import { ErrorReplies } from './common.ts';

/** `GET /metrics` — Prometheus text exposition (docs/metrics.md). */

/** The page is streamed as text; the schema says so (the serialiser is not used for a stream). */
export const MetricsPage = Type.String({ description: 'Prometheus text format 0.0.4 (text/plain; version=0.0.4)' });

/** Route schema. */
export const MetricsRoute = { response: { 200: MetricsPage, ...ErrorReplies } };
