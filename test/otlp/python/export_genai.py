"""Pushes GenAI client metrics to a breakerbox collector with the stock OpenTelemetry SDK.

Run by test/otlp/python-sdk.test.ts inside a throwaway virtual environment:
    BREAKERBOX_URL=http://127.0.0.1:PORT BREAKERBOX_TOKEN=... python export_genai.py
"""
import os

from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader
from opentelemetry.sdk.resources import Resource

url = os.environ["BREAKERBOX_URL"]
token = os.environ["BREAKERBOX_TOKEN"]

exporter = OTLPMetricExporter(endpoint=f"{url}/v1/metrics", headers={"Authorization": f"Bearer {token}"})
reader = PeriodicExportingMetricReader(exporter, export_interval_millis=3_600_000)
provider = MeterProvider(
    resource=Resource.create({"service.name": "python-service", "service.instance.id": "py-1"}),
    metric_readers=[reader],
)
meter = provider.get_meter("genai-python-test")
duration = meter.create_histogram(
    "gen_ai.client.operation.duration",
    unit="s",
    explicit_bucket_boundaries_advisory=[0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92],
)
tokens = meter.create_histogram("gen_ai.client.token.usage", unit="{token}")

attrs = {
    "gen_ai.provider.name": "openai",
    "gen_ai.operation.name": "chat",
    "gen_ai.request.model": "python-model",
    "server.address": "api.openai.com",
}
for _ in range(30):
    duration.record(0.5, attrs)
    tokens.record(200, {**attrs, "gen_ai.token.type": "input"})
    tokens.record(50, {**attrs, "gen_ai.token.type": "output"})
for _ in range(5):
    duration.record(1.5, {**attrs, "error.type": "openai.RateLimitError"})

provider.force_flush()
provider.shutdown()
