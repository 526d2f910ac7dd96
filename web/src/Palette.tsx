// The block palette: the catalog grouped by family, a search box, the hovered or chosen
// entry's ports and parameters. Entries are placed by dragging them onto the canvas (mouse
// events, so any pointer works) or by clicking one and then clicking the canvas.
import { useMemo, useState } from "react";
import { family, type CatalogEntry } from "./model";

/** the families most diagrams use, listed first (the others follow alphabetically) */
const FIRST = ["sources", "math", "continuous", "discrete", "sinks", "routing", "nonlinear",
  "subsystems", "lookup", "events", "control"];

interface Props {
  catalog: CatalogEntry[];
  armed: string | null;
  onPress: (type: string, e: React.MouseEvent) => void;
}

export function Palette({ catalog, armed, onPress }: Props) {
  const [query, setQuery] = useState("");
  const [shown, setShown] = useState<CatalogEntry | null>(null);
  const [closed, setClosed] = useState<Set<string>>(
    () => new Set(["arm", "vehicle", "quadrotor", "hardware", "floating", "planning", "vision"]));
  const groups = useMemo(() => {
    const q = query.trim().toLowerCase();
    const out = new Map<string, CatalogEntry[]>();
    for (const e of catalog) {
      if (!e.in_files) continue;
      if (q && !e.type.toLowerCase().includes(q) && !e.summary.toLowerCase().includes(q)
          && !family(e).includes(q)) continue;
      const f = family(e);
      if (!out.has(f)) out.set(f, []);
      out.get(f)!.push(e);
    }
    const rank = (f: string) => { const i = FIRST.indexOf(f); return i < 0 ? FIRST.length : i; };
    return [...out.entries()].sort((a, b) => rank(a[0]) - rank(b[0]) || a[0].localeCompare(b[0]));
  }, [catalog, query]);
  return (
    <aside className="palette">
      <input className="palette-search" data-palette-search="" placeholder="search blocks…"
             value={query} onChange={(e) => setQuery(e.target.value)} />
      <div className="palette-groups">
        {groups.map(([f, entries]) => {
          const open = query.trim() !== "" || !closed.has(f);
          return (
            <section key={f} className="palette-family" data-family={f}>
              <h4 onClick={() => setClosed((c) => {
                const n = new Set(c);
                if (n.has(f)) n.delete(f); else n.add(f);
                return n;
              })}>{open ? "▾" : "▸"} {f} <span className="count">{entries.length}</span></h4>
              {open && entries.map((e) => (
                <div key={e.type} data-palette={e.type}
                     className={`palette-entry${armed === e.type ? " armed" : ""}`}
                     title={e.summary}
                     onMouseEnter={() => setShown(e)}
                     onMouseDown={(ev) => { if (ev.button === 0) { ev.preventDefault(); onPress(e.type, ev); } }}>
                  {e.type}
                </div>
              ))}
            </section>
          );
        })}
      </div>
      {shown && (
        <div className="palette-info" data-palette-info={shown.type}>
          <b>{shown.type}</b> <span className="muted">({family(shown)})</span>
          <p>{shown.summary}</p>
          <div><i>inputs:</i> {shown.inputs.map((p) => p.name).join(", ") || "none"}</div>
          <div><i>outputs:</i> {shown.outputs.map((p) => p.name).join(", ") || "none"}</div>
          <div><i>parameters:</i> {shown.parameters.map((p) =>
            `${p.name}${p.required ? "*" : ""}${p.unit && p.unit !== "-" ? ` [${p.unit}]` : ""}`).join(", ") || "none"}</div>
          {shown.note && <p className="muted">{shown.note}</p>}
        </div>
      )}
    </aside>
  );
}
