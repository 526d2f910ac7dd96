// Which block, parameter or wire a problem names: the server's marks when it sends them,
// else read from the problem's JSON path ("file:line: blocks.pid.params.Kp: message").
import type { Mark } from "./api";

export interface Attributed {
  message: string;
  /** block path from the top: ["vloop", "pi"] */
  block: string[] | null;
  param: string | null;
  /** a wire as `from->to` (full block.port names), or its index in its body's wires */
  wire: string | null;
  wireIndex: number | null;
  /** the path of the body holding the wire */
  wirePath: string[];
}

const LINE = /^\s*(?:[^\s:][^:]*:\d+:\s*)?([A-Za-z_][\w.\-[\]]*):\s+(.*)$/;

/** Read the JSON path of a problem: blocks/params/wires, through inline subsystems. */
export function attribute(problem: string): Attributed {
  const out: Attributed = { message: problem.trim(), block: null, param: null, wire: null,
    wireIndex: null, wirePath: [] };
  const m = LINE.exec(problem);
  if (!m) return out;
  const path = m[1];
  out.message = m[2];
  const parts = path.split(".");
  const blocks: string[] = [];
  let i = 0;
  while (i < parts.length) {
    if (parts[i] === "blocks" && i + 1 < parts.length) {
      blocks.push(parts[i + 1]);
      i += 2;
      if (parts[i] === "diagram") i += 1;
      continue;
    }
    const w = /^wires\[(\d+)\]$/.exec(parts[i]);
    if (w) {
      // the wire belongs to the body of the blocks named so far
      out.wireIndex = Number(w[1]);
      out.wirePath = [...blocks];
      blocks.length = 0;
      return out;
    }
    if (parts[i] === "params" && i + 1 < parts.length) out.param = parts[i + 1];
    break;
  }
  if (blocks.length) out.block = blocks;
  return out;
}

/** A server mark -> the same shape (its block may be a "/"-joined path). */
export function fromMark(mark: Mark, problem?: string): Attributed {
  const read = attribute(problem ?? mark.message);
  const wireIndex = mark.wire && /^wires\[(\d+)\]/.exec(mark.wire);
  let wire = mark.wire && mark.wire.includes("->") ? mark.wire : null;
  let wirePath = read.wirePath;
  if (wire) {
    // a wire inside a subsystem names its ends "sub/a.y->sub/b.u"
    const [from, to] = wire.split("->");
    const cut = from.lastIndexOf("/");
    if (cut >= 0 && to.startsWith(from.slice(0, cut + 1))) {
      wirePath = from.slice(0, cut).split("/");
      wire = `${from.slice(cut + 1)}->${to.slice(cut + 1)}`;
    } else {
      wirePath = [];
    }
  }
  return {
    message: read.message || mark.message,
    block: mark.block ? mark.block.split("/") : read.block,
    param: mark.param ?? read.param,
    wire,
    wireIndex: wireIndex ? Number(wireIndex[1]) : wire ? null : read.wireIndex,
    wirePath,
  };
}

export function attributeAll(problems: string[], marks?: Mark[]): Attributed[] {
  if (marks && marks.length === problems.length) return marks.map((m, i) => fromMark(m, problems[i]));
  if (marks && marks.length) return marks.map((m) => fromMark(m));
  return problems.map(attribute);
}
