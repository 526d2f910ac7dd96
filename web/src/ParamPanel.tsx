// The parameter panel of the selected block: its name, and each parameter of the catalog
// with its default and unit. Values are typed as the file writes them; the problems loading
// finds for a field are shown next to it.
import { useEffect, useState } from "react";
import { parseValue, showValue, type BlockDoc, type CatalogEntry, type Json } from "./model";

interface Props {
  name: string;
  block: BlockDoc;
  entry: CatalogEntry | undefined;
  problems: { param: string | null; message: string }[];
  onRename: (old: string, neu: string) => boolean;
  onParam: (param: string, value: Json | undefined) => void;
  onOpen: () => void;
}

function Field({ label, value, placeholder, problem, onCommit, attr }: {
  label: React.ReactNode; value: string; placeholder: string; problem?: string;
  onCommit: (text: string) => void; attr: Record<string, string> }) {
  const [text, setText] = useState(value);
  useEffect(() => setText(value), [value]);
  return (
    <label className={`field${problem ? " invalid" : ""}`}>
      <span className="field-label">{label}</span>
      <input {...attr} value={text} placeholder={placeholder} spellCheck={false}
             data-problem={problem}
             aria-invalid={problem ? true : undefined}
             onChange={(e) => setText(e.target.value)}
             onBlur={() => { if (text !== value) onCommit(text); }}
             onKeyDown={(e) => {
               e.stopPropagation();
               if (e.key === "Enter") onCommit(text);
               if (e.key === "Escape") setText(value);
             }} />
      {problem && <span className="field-problem" data-field-problem={attr["data-param"] ?? "name"}>{problem}</span>}
    </label>
  );
}

export function ParamPanel({ name, block, entry, problems, onRename, onParam, onOpen }: Props) {
  const [nameProblem, setNameProblem] = useState<string | undefined>();
  useEffect(() => setNameProblem(undefined), [name]);
  const params = block.params ?? {};
  const blockProblems = problems.filter((p) => !p.param);
  const known = new Set(entry?.parameters.map((p) => p.name) ?? []);
  const extra = Object.keys(params).filter((k) => !known.has(k));
  return (
    <div className="param-panel" data-panel={name}>
      <h3>{block.type} <span className="muted">{name}</span></h3>
      {entry && <p className="muted small">{entry.summary}</p>}
      <Field label="name" value={name} placeholder="" problem={nameProblem}
             attr={{ "data-field": "name" }}
             onCommit={(t) => {
               const ok = onRename(name, t.trim());
               setNameProblem(ok ? undefined : `'${t}' is not a free block name (letters, digits, _ and -)`);
             }} />
      {block.type === "Subsystem" && (
        <div className="subsystem-info">
          {block.file ? <p>Included from <code>{block.file}</code>: edit that file to change it.</p>
            : <button data-action="open" onClick={onOpen}>open subsystem</button>}
        </div>
      )}
      {block.type !== "Subsystem" && entry?.parameters.map((p) => {
        const has = p.name in params;
        const problem = problems.filter((q) => q.param === p.name).map((q) => q.message).join("; ");
        const unit = p.unit && p.unit !== "-" ? ` [${p.unit}]` : "";
        return (
          <Field key={p.name}
                 label={<>{p.name}{p.required ? <b className="req">*</b> : null}<span className="unit">{unit}</span>
                   {p.strings ? <span className="muted small"> text</span> : null}</>}
                 value={has ? showValue(params[p.name]) : ""}
                 placeholder={p.required ? "required" : `default ${showValue(p.default ?? null)}`}
                 problem={problem || undefined}
                 attr={{ "data-param": p.name }}
                 onCommit={(t) => onParam(p.name, t.trim() === "" ? undefined : parseValue(t))} />
        );
      })}
      {extra.map((k) => (
        <Field key={k} label={<>{k} <span className="muted small">(unknown)</span></>}
               value={showValue(params[k])} placeholder=""
               problem={problems.filter((q) => q.param === k).map((q) => q.message).join("; ") || undefined}
               attr={{ "data-param": k }}
               onCommit={(t) => onParam(k, t.trim() === "" ? undefined : parseValue(t))} />
      ))}
      {blockProblems.map((p, i) => <p key={i} className="field-problem" data-block-problem="">{p.message}</p>)}
      <p className="muted small">Numbers, lists <code>[1, 2]</code>, <code>true</code>, text, expressions
        <code>=pi/2</code> or <code>2*Kp</code>, shared names <code>$Kp</code>. Empty: the default.</p>
    </div>
  );
}
