// The panel of the diagram itself (shown when no block is selected): its shared parameters
// ("parameters": {"K": 2.0}), used by blocks as "$K" or by name in expressions.
import { useState } from "react";
import { parseValue, showValue, type Json, type Obj } from "./model";

interface Props {
  parameters: Obj | null;
  problems: { param: string | null; message: string }[];
  onSet: (name: string, value: Json | undefined) => void;
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

function ValueField({ name, value, problem, onCommit }: {
  name: string; value: string; problem?: string; onCommit: (t: string) => void }) {
  const [text, setText] = useState(value);
  const [shown, setShown] = useState(value);
  if (shown !== value) { setShown(value); setText(value); }
  return (
    <label className={`field${problem ? " invalid" : ""}`}>
      <span className="field-label">{name}
        <button className="remove" data-remove-shared={name} title={`remove ${name}`}
                onClick={(e) => { e.preventDefault(); onCommit(""); }}>×</button></span>
      <input data-shared={name} value={text} spellCheck={false} data-problem={problem}
             onChange={(e) => setText(e.target.value)}
             onBlur={() => { if (text !== value && text.trim() !== "") onCommit(text); }}
             onKeyDown={(e) => {
               e.stopPropagation();
               if (e.key === "Enter" && text.trim() !== "") onCommit(text);
               if (e.key === "Escape") setText(value);
             }} />
      {problem && <span className="field-problem" data-field-problem={`$${name}`}>{problem}</span>}
    </label>
  );
}

export function DiagramPanel({ parameters, problems, onSet }: Props) {
  const [name, setName] = useState("");
  const [value, setValue] = useState("");
  const [error, setError] = useState<string | null>(null);
  const entries = Object.entries(parameters ?? {});
  const add = () => {
    const n = name.trim();
    if (!IDENT.test(n)) { setError("a name is letters, digits and _, not starting with a digit"); return; }
    if (parameters && n in parameters) { setError(`'${n}' is already a shared parameter`); return; }
    if (value.trim() === "") { setError("give it a value"); return; }
    setError(null);
    onSet(n, parseValue(value));
    setName(""); setValue("");
  };
  return (
    <div className="diagram-panel" data-panel="">
      <h3>Shared parameters</h3>
      <p className="muted small">Blocks use them as <code>$name</code>, or by name in
        expressions (<code>2*K</code>).</p>
      {entries.map(([k, v]) => (
        <ValueField key={k} name={k} value={showValue(v)}
                    problem={problems.filter((p) => p.param === k).map((p) => p.message).join("; ") || undefined}
                    onCommit={(t) => onSet(k, t.trim() === "" ? undefined : parseValue(t))} />
      ))}
      <div className="add-shared">
        <input data-new-shared="name" placeholder="name" value={name} size={8}
               onChange={(e) => setName(e.target.value)} onKeyDown={(e) => e.stopPropagation()} />
        <input data-new-shared="value" placeholder="value" value={value} size={10}
               onChange={(e) => setValue(e.target.value)}
               onKeyDown={(e) => { e.stopPropagation(); if (e.key === "Enter") add(); }} />
        <button data-action="add-shared" onClick={add}>add</button>
      </div>
      {error && <p className="field-problem">{error}</p>}
      <div className="muted help small">
        <p>Select a block to edit its name and parameters. Drag a block from the palette onto
          the canvas (or click it, then click the canvas); drag from an output (right) to an
          input (left) to wire. Double-click a name to rename it, a subsystem to open it.</p>
        <p>Keys: Delete, Ctrl-C, Ctrl-V, Ctrl-Z, Ctrl-Y, Ctrl-S.</p>
      </div>
    </div>
  );
}
