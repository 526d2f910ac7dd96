// One wire (one connection from an output to an input), marked when a problem names it.
import { BaseEdge, getSmoothStepPath, type Edge, type EdgeProps } from "@xyflow/react";

export interface WireData extends Record<string, unknown> { wire: string; problems: string[] }
export type WireEdgeType = Edge<WireData, "wire">;

export function WireEdge(props: EdgeProps<WireEdgeType>) {
  const { sourceX, sourceY, targetX, targetY, sourcePosition, targetPosition, data,
    selected, markerEnd } = props;
  let [path, lx, ly] = getSmoothStepPath({ sourceX, sourceY, targetX, targetY,
    sourcePosition, targetPosition, borderRadius: 6 });
  if (targetX < sourceX + 10) {
    // a feedback wire: out to the right, below both blocks, back in from the left
    const below = Math.max(sourceY, targetY) + 55;
    const x1 = sourceX + 14, x2 = targetX - 14;
    path = `M ${sourceX} ${sourceY} L ${x1} ${sourceY} L ${x1} ${below} L ${x2} ${below} L ${x2} ${targetY} L ${targetX} ${targetY}`;
    lx = (x1 + x2) / 2;
    ly = below + 14;
  }
  const problems = data?.problems ?? [];
  const problem = problems.length ? problems.join("\n") : undefined;
  return (
    <g data-wire={data?.wire} data-problem={problem}
       className={`wire${selected ? " selected" : ""}${problem ? " problem" : ""}`}>
      <BaseEdge path={path} markerEnd={markerEnd} interactionWidth={14} />
      {problem && (
        <text x={lx} y={ly - 6} className="wire-problem" textAnchor="middle">
          {problems[0].length > 48 ? problems[0].slice(0, 47) + "…" : problems[0]}</text>
      )}
      <title>{problem ?? data?.wire}</title>
    </g>
  );
}
