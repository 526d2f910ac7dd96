// Automatic layered layout, left to right (elkjs, the bundled build: no worker file to load).
import ELK from "elkjs/lib/elk.bundled.js";

const elk = new ELK();

export interface LayoutNode { id: string; width: number; height: number;
  inputs: string[]; outputs: string[] }
export interface LayoutEdge { from: string; to: string }

/** Positions (top-left) of the nodes, by id. Edges are "block.port" ends. */
export async function autoLayout(nodes: LayoutNode[], edges: LayoutEdge[]
): Promise<Record<string, { x: number; y: number }>> {
  const ports = new Set(nodes.flatMap((n) => [...n.inputs, ...n.outputs].map((p) => `${n.id}.${p}`)));
  const graph = {
    id: "root",
    layoutOptions: {
      "elk.algorithm": "layered",
      "elk.direction": "RIGHT",
      "elk.spacing.nodeNode": "40",
      "elk.layered.spacing.nodeNodeBetweenLayers": "70",
      "elk.layered.spacing.edgeNodeBetweenLayers": "20",
      "elk.portConstraints": "FIXED_ORDER",
      "elk.layered.crossingMinimization.semiInteractive": "false",
    },
    children: nodes.map((n) => ({
      id: n.id, width: n.width, height: n.height,
      layoutOptions: { "elk.portConstraints": "FIXED_ORDER" },
      ports: [
        ...n.inputs.map((p, i) => ({ id: `${n.id}.${p}`, layoutOptions: {
          "elk.port.side": "WEST", "elk.port.index": String(n.inputs.length - i) } })),
        ...n.outputs.map((p, i) => ({ id: `${n.id}.${p}`, layoutOptions: {
          "elk.port.side": "EAST", "elk.port.index": String(i) } })),
      ],
    })),
    edges: edges
      .filter((e) => ports.has(e.from) && ports.has(e.to))
      .map((e, i) => ({ id: `e${i}`, sources: [e.from], targets: [e.to] })),
  };
  const out = await elk.layout(graph as any);
  const pos: Record<string, { x: number; y: number }> = {};
  for (const c of out.children ?? []) pos[c.id] = { x: c.x ?? 0, y: c.y ?? 0 };
  return pos;
}
