// The diagram document (the file format of docs/diagram-format.md) and the edits the editor
// makes on it. The document is kept as the JSON object the file holds: unknown members and
// the key order of existing blocks are kept, so a save writes back what was opened.

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
export type Obj = { [k: string]: Json };

export interface PortInfo { name: string; shape?: Json; unit?: string }
export interface ParamInfo {
  name: string; required: boolean; unit: string; strings: boolean; default?: Json;
  annotation?: string;
}
export interface CatalogEntry {
  type: string; module: string; source: string; summary: string; family?: string;
  inputs: PortInfo[]; outputs: PortInfo[]; parameters: ParamInfo[]; in_files: boolean;
  note?: string;
}
export type Catalog = Map<string, CatalogEntry>;

export interface BlockDoc { type: string; params?: Obj; diagram?: Body; file?: string;
  description?: string; parameters?: Obj; [k: string]: Json | Body | undefined }
export interface WireDoc { from: string; to: string | string[]; [k: string]: Json }
export interface Body { blocks: { [name: string]: BlockDoc }; wires?: WireDoc[];
  [k: string]: Json | undefined | { [name: string]: BlockDoc } | WireDoc[] }
export type Doc = Body & { blocksim?: number; layout?: Obj };

export interface Ports { inputs: string[]; outputs: string[] }
export interface Edge { from: string; to: string; wire: number; index: number }

export const clone = <T,>(v: T): T => JSON.parse(JSON.stringify(v));

const isObj = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** A document as the editor can show it: `blocks` an object of objects each with a `type`
 * (a file broken there does not load anyway; the problems say what was wrong), at every
 * level of inline subsystems. Everything else is kept as it is. */
export function sanitize(doc: Doc): Doc {
  const fix = (body: Body) => {
    if (!isObj(body.blocks)) body.blocks = {};
    for (const [k, b] of Object.entries(body.blocks)) {
      if (!isObj(b)) body.blocks[k] = { type: "" };
      else {
        if (typeof b.type !== "string") b.type = "";
        if (b.params !== undefined && !isObj(b.params)) delete b.params;
        if (isObj(b.diagram)) fix(b.diagram as Body);
        else if (b.diagram !== undefined) delete b.diagram;
      }
    }
  };
  fix(doc);
  return doc;
}

/** The wires of a body that are objects, with their index in the file's list. */
export function wiresOf(body: Body): [WireDoc, number][] {
  const ws = Array.isArray(body.wires) ? body.wires : [];
  return ws.map((w, i): [WireDoc, number] => [w, i]).filter(([w]) => isObj(w));
}

/** The family a catalog entry is listed under in the palette. */
export function family(e: CatalogEntry): string {
  if (e.family) return e.family;
  const parts = e.module.split(".");
  if (parts[0] === "blocksim" && parts[1] === "blocks" && parts.length > 2) return parts[2];
  if (e.module.startsWith("blocksim.engine.subsystem")) return "subsystems";
  return e.source === "blocksim" ? "other" : e.source;
}

/** The body (blocks, wires) shown at `path` (names of subsystem blocks, outermost first). */
export function bodyAt(doc: Doc, path: string[]): Body | null {
  let body: Body = doc;
  for (const name of path) {
    const b = body.blocks?.[name];
    if (!b || !b.diagram || typeof b.diagram !== "object") return null;
    body = b.diagram;
  }
  return body;
}

/** The key of a block in the layout section: its path joined with "/" ("ctrl/pid"). */
export const layoutKey = (path: string[], name: string) => [...path, name].join("/");

export function layoutBlocks(doc: Doc): { [k: string]: Obj } {
  const lay = doc.layout;
  if (!lay || typeof lay !== "object" || Array.isArray(lay)) return {};
  const b = (lay as Obj).blocks;
  if (!b || typeof b !== "object" || Array.isArray(b)) return {};
  return b as { [k: string]: Obj };
}

/** Positions in the layout section are in layout units; the canvas draws them this much
 * larger (a block is about 100 units wide in the file's terms, 160 pixels on the canvas). */
export const LAYOUT_SCALE = 1.6;

export function positionOf(doc: Doc, key: string): { x: number; y: number } | null {
  const p = layoutBlocks(doc)[key];
  if (p && typeof p.x === "number" && typeof p.y === "number")
    return { x: p.x * LAYOUT_SCALE, y: p.y * LAYOUT_SCALE };
  return null;
}

/** Write positions into doc.layout.blocks (keeping other members of each entry). */
export function setPositions(doc: Doc, pos: { [key: string]: { x: number; y: number } }) {
  if (!doc.layout || typeof doc.layout !== "object" || Array.isArray(doc.layout)) doc.layout = {};
  const lay = doc.layout as Obj;
  if (!lay.blocks || typeof lay.blocks !== "object" || Array.isArray(lay.blocks)) lay.blocks = {};
  const blocks = lay.blocks as { [k: string]: Obj };
  for (const [k, p] of Object.entries(pos)) {
    const old = blocks[k] && typeof blocks[k] === "object" ? blocks[k] : {};
    blocks[k] = { ...old, x: Math.round(p.x / LAYOUT_SCALE), y: Math.round(p.y / LAYOUT_SCALE) };
  }
}

function count(v: Json | undefined): number | null {
  if (typeof v === "number" && Number.isInteger(v) && v >= 0 && v <= 64) return v;
  return null;
}

/** The ports of a block: the server's answer when there is one, else worked out from the
 * catalog and the parameters that set the number of ports, plus every port a wire names. */
export function portsOf(name: string, block: BlockDoc, cat: Catalog, body: Body,
                        known?: Ports): Ports {
  const e = cat.get(block.type);
  let inputs = known ? [...known.inputs] : e ? e.inputs.map((p) => p.name) : [];
  let outputs = known ? [...known.outputs] : e ? e.outputs.map((p) => p.name) : [];
  const params = block.params ?? {};
  if (!known) {
    if (block.type === "Subsystem" && block.diagram && typeof block.diagram === "object") {
      const inner = Object.entries(block.diagram.blocks ?? {});
      inputs = inner.filter(([, b]) => b.type === "Inport").map(([n]) => n);
      outputs = inner.filter(([, b]) => b.type === "Outport").map(([n]) => n);
    }
    const n = (v: Json | undefined) =>
      typeof v === "string" && !v.startsWith("=") && !v.startsWith("$")
        ? v.replace(/[^+\-*/]/g, "").length || null : count(v);
    const numbered = (k: number, one: string[], prefix: string) =>
      k === 1 && one.length === 1 ? one : Array.from({ length: k }, (_, i) => `${prefix}${i}`);
    const signs = "signs" in params ? n(params.signs) : null;
    const ops = "ops" in params ? n(params.ops) : null;
    const nin = "nin" in params ? count(params.nin) : null;
    const nout = "nout" in params ? count(params.nout) : null;
    const k = signs ?? ops ?? nin;
    if (k !== null) inputs = numbered(k, inputs, "u");
    if (nout !== null) outputs = numbered(nout, outputs, "y");
  }
  // every port a wire names is drawn (so nothing the file holds is hidden); a wire naming
  // the block alone, whose ports are not known yet, goes to "y" / "u" until the server says
  for (const [w] of wiresOf(body)) {
    const f = splitEnd(w.from);
    if (f && f[0] === name) {
      const p = f[1] ?? (outputs.length ? null : "y");
      if (p && !outputs.includes(p)) outputs.push(p);
    }
    for (const t of toList(w.to)) {
      const e = splitEnd(t);
      if (!e || e[0] !== name) continue;
      const p = e[1] ?? (inputs.length ? null : "u");
      if (p && !inputs.includes(p)) inputs.push(p);
    }
  }
  return { inputs, outputs };
}

export function splitEnd(end: Json | undefined): [string, string | null] | null {
  if (typeof end !== "string") return null;
  const i = end.indexOf(".");
  return i < 0 ? [end, null] : [end.slice(0, i), end.slice(i + 1)];
}

export const toList = (to: Json | undefined): string[] =>
  Array.isArray(to) ? to.filter((t): t is string => typeof t === "string")
    : typeof to === "string" ? [to] : [];

/** Every connection of a body, with full block.port names. */
export function edgesOf(body: Body, ports: (name: string) => Ports): Edge[] {
  const out: Edge[] = [];
  wiresOf(body).forEach(([w, wi]) => {
    const f = splitEnd(w.from);
    if (!f) return;
    const fp = f[1] ?? ports(f[0]).outputs[0] ?? "y";
    toList(w.to).forEach((t, ti) => {
      const p = splitEnd(t);
      if (!p) return;
      const tp = p[1] ?? ports(p[0]).inputs[0] ?? "u";
      out.push({ from: `${f[0]}.${fp}`, to: `${p[0]}.${tp}`, wire: wi, index: ti });
    });
  });
  return out;
}

/** A new block name: the type lowercased plus the first free number. */
export function freshName(body: Body, base: string, taken: Set<string> = new Set()): string {
  const stem = base.toLowerCase().replace(/[^a-z0-9_-]/g, "") || "block";
  for (let i = 1; ; i++) {
    const n = `${stem}${i}`;
    if (!(n in body.blocks) && !taken.has(n)) return n;
  }
}

/** Remove the connection `edge` (one element of a wire's `to`). */
export function removeEdge(body: Body, edge: Edge) {
  const w = body.wires?.[edge.wire];
  if (!w) return;
  if (Array.isArray(w.to)) {
    w.to.splice(edge.index, 1);
    if (w.to.length === 0) body.wires!.splice(edge.wire, 1);
  } else {
    body.wires!.splice(edge.wire, 1);
  }
}

/** Remove blocks and every wire end naming them. */
export function removeBlocks(body: Body, names: Set<string>) {
  const blocks: { [k: string]: BlockDoc } = {};
  for (const [k, v] of Object.entries(body.blocks)) if (!names.has(k)) blocks[k] = v;
  body.blocks = blocks;
  const wires: WireDoc[] = [];
  if (!Array.isArray(body.wires)) return;
  for (const w of body.wires) {
    if (!isObj(w)) { wires.push(w); continue; }
    const f = splitEnd(w.from);
    if (f && names.has(f[0])) continue;
    if (Array.isArray(w.to)) {
      const to = w.to.filter((t) => !names.has(splitEnd(t)?.[0] ?? ""));
      if (to.length) wires.push({ ...w, to });
    } else {
      const t = splitEnd(w.to);
      if (!(t && names.has(t[0]))) wires.push(w);
    }
  }
  if (body.wires) body.wires = wires;
}

function renameEnd(end: string, old: string, neu: string): string {
  const p = splitEnd(end);
  if (!p || p[0] !== old) return end;
  return p[1] === null ? neu : `${neu}.${p[1]}`;
}

/** Rename a block in place (same key position), its wires and its layout entries. */
export function renameBlock(doc: Doc, path: string[], old: string, neu: string) {
  const body = bodyAt(doc, path)!;
  const blocks: { [k: string]: BlockDoc } = {};
  for (const [k, v] of Object.entries(body.blocks)) blocks[k === old ? neu : k] = v;
  body.blocks = blocks;
  for (const [w] of wiresOf(body)) {
    w.from = renameEnd(w.from, old, neu);
    w.to = Array.isArray(w.to) ? w.to.map((t) => renameEnd(t, old, neu)) : renameEnd(w.to, old, neu);
  }
  // an Inport/Outport is a port of its subsystem: the wires of the level above follow
  const type = body.blocks[neu]?.type;
  if (path.length && (type === "Inport" || type === "Outport")) {
    const sub = path[path.length - 1];
    const outer = bodyAt(doc, path.slice(0, -1));
    const re = (end: string) => (end === `${sub}.${old}` ? `${sub}.${neu}` : end);
    for (const [w] of outer ? wiresOf(outer) : []) {
      w.from = re(w.from);
      w.to = Array.isArray(w.to) ? w.to.map(re) : re(w.to);
    }
  }
  const lay = layoutBlocks(doc);
  const prefix = layoutKey(path, old);
  const fresh: { [k: string]: Obj } = {};
  let changed = false;
  for (const [k, v] of Object.entries(lay)) {
    if (k === prefix || k.startsWith(prefix + "/")) {
      fresh[layoutKey(path, neu) + k.slice(prefix.length)] = v;
      changed = true;
    } else fresh[k] = v;
  }
  if (changed) (doc.layout as Obj).blocks = fresh;
}

/** Connect output `from` (block.port) to input `to`: an input has one driver, so a wire
 * already driving `to` is replaced. */
export function connect(body: Body, from: string, to: string, ports: (n: string) => Ports) {
  for (const e of edgesOf(body, ports).filter((e) => e.to === to).reverse()) removeEdge(body, e);
  if (!Array.isArray(body.wires)) body.wires = [];
  body.wires.push({ from, to });
}

export const BLOCK_NAME = /^[A-Za-z0-9_-]+$/;

/** A parameter value as the field shows it: strings as typed, other values as JSON. */
export function showValue(v: Json | undefined): string {
  if (v === undefined) return "";
  if (typeof v === "string") return v;
  return JSON.stringify(v);
}

/** The text typed into a parameter field -> the value the file holds. Numbers, lists,
 * true/false/null and objects are JSON; anything else stays text ("=expr", "$shared",
 * "pi/2", "+-"), which the loader reads by the parameter's rule. */
export function parseValue(text: string): Json {
  const t = text.trim();
  if (t === "") return "";
  if (/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(t) || /^(true|false|null)$/.test(t)
      || t.startsWith("[") || t.startsWith("{")) {
    try {
      return JSON.parse(t.startsWith("+") ? t.slice(1) : t);
    } catch {
      return text;
    }
  }
  return text;
}

/** A short summary of a block's parameters for its box. */
export function summary(block: BlockDoc): string {
  if (block.type === "Subsystem") {
    if (block.file) return `file: ${block.file}`;
    return `${Object.keys(block.diagram?.blocks ?? {}).length} blocks`;
  }
  const parts = Object.entries(block.params ?? {}).map(([k, v]) => {
    let s = typeof v === "string" ? v : JSON.stringify(v);
    if (s.length > 18) s = s.slice(0, 17) + "…";
    return `${k}=${s}`;
  });
  const text = parts.join(", ");
  return text.length > 60 ? text.slice(0, 59) + "…" : text;
}
