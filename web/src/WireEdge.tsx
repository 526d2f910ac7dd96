// One wire (one connection from an output to an input), marked when a problem names it.
import { BaseEdge, getSmoothStepPath, type Edge, type EdgeProps } from "@xyflow/react";

export interface WireData extends Record<string, unknown> { wire: string; problems: string[] }
export type WireEdgeType = Edge<WireData, "wire">;

export function WireEdge(props: EdgeProps<WireEdgeType>) {
  const { sourceX, sourceY, targetX, targetY, sourcePosition, targetPosition, data,
    selected, markerEnd } = props;
  const [path, lx, ly] = getSmoothStepPath({ sourceX, sourceY, targetX, targetY,
    sourcePosition, targetPosition, borderRadius: 6 });
  const problems = data?.problems ?? [];
  const problem = problems.length ? problems.join("\n") : undefined;
  return (
    <g data-wire={data?.wire} data-problem={problem}
       className={`wire${selected ? " selected" : ""}${problem ? " problem" : ""}`}>
      <BaseEdge path={path} markerEnd={markerEnd} interactionWidth={14} />
      {problem && (
        <text x={lx} y={ly - 6} className="wire-problem" textAnchor="middle">{problems[0]}</text>
      )}
      <title>{problem ?? data?.wire}</title>
    </g>
  );
}
