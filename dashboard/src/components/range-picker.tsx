import { useState } from 'react';
import { PRESETS, type TimeRange } from '../time-range.ts';

function toLocalInput(ms: number): string {
  const d = new Date(ms - new Date(ms).getTimezoneOffset() * 60_000);
  return d.toISOString().slice(0, 16);
}

/**
 * The time range picker: presets as a button group, and a custom from/to in local time.
 * The chosen range goes to the URL through `onChange`.
 */
export function RangePicker({ range, onChange }: { range: TimeRange; onChange(range: TimeRange): void }) {
  const [custom, setCustom] = useState(range.kind === 'custom');
  const initial = range.kind === 'custom' ? range : { from: Date.now() - 3_600_000, to: Date.now() };
  const [from, setFrom] = useState(toLocalInput(initial.from));
  const [to, setTo] = useState(toLocalInput(initial.to));
  const fromMs = new Date(from).getTime();
  const toMs = new Date(to).getTime();
  const valid = Number.isFinite(fromMs) && Number.isFinite(toMs) && fromMs < toMs;

  return (
    <div className="range-picker" role="group" aria-label="Time range">
      {PRESETS.map((preset) => (
        <button
          key={preset}
          type="button"
          className="range-button"
          aria-pressed={!custom && range.kind === 'preset' && range.preset === preset}
          onClick={() => {
            setCustom(false);
            onChange({ kind: 'preset', preset });
          }}
        >
          {preset}
        </button>
      ))}
      <button type="button" className="range-button" aria-pressed={custom} aria-expanded={custom} onClick={() => setCustom(!custom)}>
        custom
      </button>
      {custom ? (
        <form
          className="range-custom"
          onSubmit={(event) => {
            event.preventDefault();
            if (valid) onChange({ kind: 'custom', from: fromMs, to: toMs });
          }}
        >
          <label>
            from <input type="datetime-local" value={from} onChange={(e) => setFrom(e.target.value)} required />
          </label>
          <label>
            to <input type="datetime-local" value={to} onChange={(e) => setTo(e.target.value)} required />
          </label>
          <button type="submit" disabled={!valid}>Apply</button>
          {!valid ? <span className="field-error" role="alert">“from” must be before “to”.</span> : null}
        </form>
      ) : null}
    </div>
  );
}
