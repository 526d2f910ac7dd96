// One block on the canvas: type, name, parameter summary, input handles on the left and
// output handles on the right with their port names (a Sum's signs at its inputs).
import { memo, useEffect, useRef, useState } from "react";
import { Handle, Position, useUpdateNodeInternals, type NodeProps, type Node } from "@xyflow/react";

export interface BlockData extends Record<string, unknown> {
  name: string;
  type: string;
  summary: string;
  inputs: string[];
  outputs: string[];
  signs: string | null;
  problems: string[];
  subsystem: boolean;
  unknown: boolean;
  onRename: (old: string, neu: string) => boolean;
  onOpen: (name: string) => void;
}
export type BlockNodeType = Node<BlockData, "block">;

export const NODE_WIDTH = 150;
export function nodeHeight(nin: number, nout: number): number {
  return Math.max(64, 26 + 20 * Math.max(nin, nout));
}

function BlockNodeView({ id, data, selected }: NodeProps<BlockNodeType>) {
  // when the ports change (a Sum's signs, ports the server worked out) the handles are
  // measured again, once they are in the page, so the wires to new ports are drawn
  const updateInternals = useUpdateNodeInternals();
  const ports = `${data.inputs.join(",")}|${data.outputs.join(",")}`;
  const first = useRef(true);
  useEffect(() => {
    if (first.current) { first.current = false; return; }
    updateInternals(id);
  }, [id, ports, updateInternals]);
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(data.name);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => { if (editing) { input.current?.focus(); input.current?.select(); } },
    [editing]);
  const h = nodeHeight(data.inputs.length, data.outputs.length);
  const at = (i: number, n: number) => `${((i + 1) * 100) / (n + 1)}%`;
  const problem = data.problems.length ? data.problems.join("\n") : undefined;
  const commit = () => {
    const neu = text.trim();
    if (neu === data.name || data.onRename(data.name, neu)) setEditing(false);
  };
  return (
    <div
      className={`block${selected ? " selected" : ""}${problem ? " problem" : ""}${data.subsystem ? " subsystem" : ""}${data.unknown ? " unknown" : ""}`}
      data-block={data.name}
      data-type={data.type}
      data-problem={problem}
      style={{ width: NODE_WIDTH, height: h }}
      title={problem}
      onDoubleClick={(e) => {
        if ((e.target as HTMLElement).closest(".block-name")) return;
        if (data.subsystem) data.onOpen(data.name);
      }}
    >
      <div className="block-type">{data.type}</div>
      {editing ? (
        <input
          ref={input}
          className="block-name-input nodrag"
          data-rename={data.name}
          value={text}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={(e) => {
            e.stopPropagation();
            if (e.key === "Enter") commit();
            if (e.key === "Escape") { setText(data.name); setEditing(false); }
          }}
          onBlur={() => { setText(data.name); setEditing(false); }}
        />
      ) : (
        <div className="block-name" title="double-click to rename"
             onDoubleClick={(e) => { e.stopPropagation(); setText(data.name); setEditing(true); }}>
          {data.name}
        </div>
      )}
      <div className="block-summary">{data.summary}</div>
      {problem && <div className="block-problem">{data.problems[0]}</div>}
      {data.inputs.map((p, i) => (
        <Handle key={`in-${p}`} id={p} type="target" position={Position.Left}
                style={{ top: at(i, data.inputs.length) }}
                data-port={`${data.name}.${p}`} className="port port-in">
          <span className="port-label port-label-in">
            {data.signs && data.signs[i] ? <b className="sign">{data.signs[i]}</b> : null}
            {p}
          </span>
        </Handle>
      ))}
      {data.outputs.map((p, i) => (
        <Handle key={`out-${p}`} id={p} type="source" position={Position.Right}
                style={{ top: at(i, data.outputs.length) }}
                data-port={`${data.name}.${p}`} className="port port-out">
          <span className="port-label port-label-out">{p}</span>
        </Handle>
      ))}
    </div>
  );
}

export const BlockNode = memo(BlockNodeView);
