// The run panel: T, solver, dt (fixed-step solvers), back-end; a progress bar and a stop
// button while the run goes on in its worker process; then the final values, one chart per
// scope, a chooser to plot any signal, and the result as .npz.
import { useEffect, useRef, useState } from "react";
import uPlot from "uplot";
import { api, withToken } from "./api";
import type { Doc } from "./model";

export const SOLVERS = ["RK45", "RK23", "DOP853", "Radau", "BDF", "LSODA", "euler", "rk4", "discrete"];
const FIXED = new Set(["euler", "rk4", "discrete"]);
const BACKENDS = ["interpreted", "compiled", "auto"];

interface RunState {
  id: string; state: string; t: number; T: number; progress: number; done: boolean;
  error?: string | null; final?: Record<string, unknown>; result?: string | null;
  message?: string | null; scopes?: Scope[];
}
interface Scope { name: string; title?: string; signals: string[]; labels?: string[]; kind?: string }
interface Traces { t: (number | string)[]; signals: Record<string, (number | string | null)[][]>;
  scopes?: Scope[] }

const num = (v: number | string | null): number | null =>
  typeof v === "number" ? v : v === "=inf" ? Infinity : v === "=-inf" ? -Infinity : v === null ? null : NaN;

const COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"];

function Chart({ title, names, traces, id }: { title: string; names: string[]; traces: Traces; id: string }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!box.current) return;
    const t = traces.t.map((v) => num(v) ?? NaN);
    const series: uPlot.Series[] = [{ label: "t [s]" }];
    const data: (number | null)[][] = [t];
    for (const n of names) {
      const cols = traces.signals[n];
      if (!cols) continue;
      cols.forEach((col, k) => {
        series.push({ label: cols.length > 1 ? `${n}[${k}]` : n,
          stroke: COLORS[(series.length - 1) % COLORS.length], width: 1.5 });
        data.push(col.map(num));
      });
    }
    const width = Math.max(300, box.current.clientWidth - 4);
    const plot = new uPlot({
      title, width, height: 170, series,
      scales: { x: { time: false } },
      cursor: { drag: { x: true, y: false } },
      axes: [{ label: "t [s]" }, {}],
      hooks: {
        // the time range shown, for tests and scripts (drag to zoom, double-click to reset)
        setScale: [(u, key) => {
          if (key === "x" && box.current) {
            box.current.dataset.tMin = String(u.scales.x.min);
            box.current.dataset.tMax = String(u.scales.x.max);
          }
        }],
      },
    }, data as uPlot.AlignedData, box.current);
    return () => plot.destroy();
  }, [title, names.join(","), traces]);
  return <div className="chart" data-chart={id} ref={box} title="drag to zoom, double-click to reset" />;
}

export function RunPanel({ doc, sync }: { doc: Doc; sync: () => Promise<void> }) {
  const sim = (doc.simulation && typeof doc.simulation === "object" ? doc.simulation : {}) as Record<string, unknown>;
  const [T, setT] = useState(String(sim.T ?? 10));
  const [solver, setSolver] = useState(typeof sim.solver === "string" ? sim.solver : "RK45");
  const [dt, setDt] = useState(sim.dt !== undefined ? String(sim.dt) : "0.001");
  const [backend, setBackend] = useState(typeof sim.backend === "string" && BACKENDS.includes(sim.backend) ? sim.backend : "auto");
  const [realtime, setRealtime] = useState("");
  const [run, setRun] = useState<RunState | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [traces, setTraces] = useState<Traces | null>(null);
  const [scopes, setScopes] = useState<Scope[]>([]);
  const [chosen, setChosen] = useState<string[]>([]);
  const [starting, setStarting] = useState(false);
  const timer = useRef<number | null>(null);

  useEffect(() => () => { if (timer.current) window.clearTimeout(timer.current); }, []);

  const poll = async (id: string) => {
    try {
      const r = await api<RunState>("GET", `/api/run/${id}`);
      setRun(r);
      if (!r.done) { timer.current = window.setTimeout(() => poll(id), 150); return; }
      if (r.result) {
        const tr = await api<Traces>("GET", `/api/run/${id}/traces`);
        setTraces(tr);
        setScopes(tr.scopes ?? r.scopes ?? []);
      }
    } catch (e) {
      setError((e as Error).message);
    }
  };

  const start = async () => {
    setError(null); setTraces(null); setScopes([]); setRun(null); setChosen([]);
    const opts: Record<string, unknown> = { solver, backend };
    const tv = Number(T);
    opts.T = Number.isFinite(tv) && T.trim() !== "" ? tv : T;
    if (FIXED.has(solver)) opts.dt = Number(dt);
    if (realtime.trim() !== "") opts.realtime = Number(realtime);
    setStarting(true);
    try {
      await sync();
      const r = await api<{ id: string }>("POST", "/api/run", opts);
      setRun({ id: r.id, state: "running", t: 0, T: tv, progress: 0, done: false });
      poll(r.id);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setStarting(false);
    }
  };
  const stop = async () => {
    if (!run) return;
    try { setRun(await api<RunState>("POST", `/api/run/${run.id}/stop`)); }
    catch (e) { setError((e as Error).message); }
  };

  const running = run !== null && !run.done;
  const allSignals = traces ? Object.keys(traces.signals) : [];
  const finals = run?.final ? Object.entries(run.final) : [];
  return (
    <div className="run-panel" data-run-state={run?.state ?? "idle"}>
      <div className="run-form">
        <label>T [s] <input data-run="T" value={T} onChange={(e) => setT(e.target.value)} size={6} /></label>
        <label>solver <select data-run="solver" value={solver} onChange={(e) => setSolver(e.target.value)}>
          {SOLVERS.map((s) => <option key={s}>{s}</option>)}</select></label>
        {FIXED.has(solver) && <label>dt [s] <input data-run="dt" value={dt} onChange={(e) => setDt(e.target.value)} size={6} /></label>}
        <label>back-end <select data-run="backend" value={backend} onChange={(e) => setBackend(e.target.value)}>
          {BACKENDS.map((s) => <option key={s}>{s}</option>)}</select></label>
        <label title="speed factor: 1 runs in real time; empty: as fast as possible">realtime
          <input data-run="realtime" value={realtime} placeholder="off" onChange={(e) => setRealtime(e.target.value)} size={4} /></label>
        <button data-action="run" onClick={start} disabled={running || starting}>▶ run</button>
        <button data-action="stop" onClick={stop} disabled={!running}>■ stop</button>
      </div>
      {run && (
        <div className="run-status">
          <progress data-progress="" max={1} value={run.progress ?? 0} />
          <span data-run-status="">{run.state} t = {Number(run.t ?? 0).toPrecision(4)} / {run.T} s</span>
          {run.result && <a data-download="npz" href={withToken(run.result)} download>result.npz</a>}
        </div>
      )}
      {(error || run?.error) && <pre className="run-error" data-run-error="">{error ?? run?.error}</pre>}
      {run?.message && <div className="muted small">{run.message}</div>}
      <div className="run-results">
        {traces && (
          <div className="plots">
            {scopes.map((s) => (
              <Chart key={s.name} id={s.name} title={s.title || s.name} names={s.signals} traces={traces} />
            ))}
            {chosen.length > 0 && <Chart id="chosen" title="chosen signals" names={chosen} traces={traces} />}
          </div>
        )}
        <div className="run-side">
          {traces && (
            <label className="chooser">plot signals (Ctrl-click for several):
              <select data-signal-chooser="" multiple size={Math.min(6, allSignals.length)} value={chosen}
                      onChange={(e) => setChosen([...e.target.selectedOptions].map((o) => o.value))}>
                {allSignals.map((s) => <option key={s} value={s}>{s}</option>)}
              </select>
            </label>
          )}
          {finals.length > 0 && (
            <details className="finals" open>
              <summary>final values ({finals.length} signals)</summary>
              <table data-finals="">
                <tbody>
                  {finals.slice(0, 200).map(([k, v]) => (
                    <tr key={k} data-final={k}><td>{k}</td><td>{JSON.stringify(v)}</td></tr>
                  ))}
                </tbody>
              </table>
            </details>
          )}
        </div>
      </div>
    </div>
  );
}
