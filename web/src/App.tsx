// The editor: the canvas (React Flow) of the diagram level shown, the palette, the parameter
// panel, check and run, save. Every edit changes the document (the file format) and is sent
// to the server (PUT /api/diagram), which answers with the problems of loading it.
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import {
  Background, Controls, MarkerType, ReactFlow, ReactFlowProvider, applyNodeChanges,
  useNodesInitialized, useReactFlow, useUpdateNodeInternals, type Connection, type EdgeChange, type Node, type NodeChange,
} from "@xyflow/react";
import { api, type CheckAnswer, type PutAnswer } from "./api";
import { BlockNode, NODE_WIDTH, nodeHeight, type BlockData } from "./BlockNode";
import { WireEdge, type WireEdgeType } from "./WireEdge";
import { Palette } from "./Palette";
import { ParamPanel } from "./ParamPanel";
import { DiagramPanel } from "./DiagramPanel";
import { RunPanel } from "./RunPanel";
import { autoLayout } from "./layout";
import { attributeAll, type Attributed } from "./marks";
import {
  BLOCK_NAME, bodyAt, clone, connect, edgesOf, freshName, layoutKey, portsOf, positionOf,
  removeBlocks, removeEdge, renameBlock, sanitize, setPositions, summary,
  type BlockDoc, type Catalog, type CatalogEntry, type Doc, type Json, type Obj, type Ports, type WireDoc,
} from "./model";

const nodeTypes = { block: BlockNode };
const edgeTypes = { wire: WireEdge };
type XY = { x: number; y: number };

interface Clip { blocks: [string, BlockDoc, XY][]; wires: WireDoc[] }

function Editor() {
  const flow = useReactFlow();
  const [catalogList, setCatalogList] = useState<CatalogEntry[]>([]);
  const catalog: Catalog = useMemo(() => new Map(catalogList.map((e) => [e.type, e])), [catalogList]);
  const [doc, setDoc] = useState<Doc | null>(null);
  const [fileName, setFileName] = useState("");
  const [loadError, setLoadError] = useState<string | null>(null);
  const [path, setPath] = useState<string[]>([]);
  const [autoPos, setAutoPos] = useState<Record<string, XY>>({});
  const [nodes, setNodes] = useState<Node<BlockData>[]>([]);
  const [selEdges, setSelEdges] = useState<Set<string>>(new Set());
  const past = useRef<Doc[]>([]);
  const future = useRef<Doc[]>([]);
  const [, setHistoryTick] = useState(0);
  const [putAnswer, setPutAnswer] = useState<PutAnswer | null>(null);
  const [check, setCheck] = useState<CheckAnswer | null>(null);
  const [status, setStatus] = useState<string>("");
  const [armed, setArmed] = useState<string | null>(null);
  const [ghost, setGhost] = useState<{ type: string; x: number; y: number } | null>(null);
  const [saveName, setSaveName] = useState("");
  const clip = useRef<Clip | null>(null);
  const syncChain = useRef<Promise<void>>(Promise.resolve());
  const putSeq = useRef(0);
  const canvas = useRef<HTMLDivElement>(null);
  const docRef = useRef<Doc | null>(null);
  docRef.current = doc;

  const fitted = useRef<string | null>(null);
  const nodesReady = useNodesInitialized();
  const fit = () => flow.fitView({ padding: 0.15, maxZoom: 1.1 });
  useEffect(() => {
    // each level is fitted into the view once, when its blocks have been measured
    const level = path.join("/");
    if (nodesReady && nodes.length && fitted.current !== level) {
      fitted.current = level;
      window.setTimeout(fit, 0);
    }
  });

  const docLoaded = doc !== null;
  useEffect(() => {
    // a level opened empty is not fitted when its first block comes (the view stays put)
    const b = docRef.current && bodyAt(docRef.current, path);
    if (b && Object.keys(b.blocks).length === 0) fitted.current = path.join("/");
  }, [docLoaded, path]);

  // -- opening -------------------------------------------------------------------------
  useEffect(() => {
    (async () => {
      try {
        const [cat, d] = await Promise.all([api<CatalogEntry[]>("GET", "/api/blocks"),
          fetchDiagram()]);
        setCatalogList(cat);
        if (needsPorts(d.doc, cat)) {
          // blocks whose ports come from their parameters (a robot's joints, ...): the server
          // builds them and says (a check changes nothing in the document)
          api<CheckAnswer>("POST", "/api/check").then((a) => {
            if (a.ports) setPorts((p) => p ?? a.ports);
          }).catch(() => undefined);
        }
        setFileName(d.name);
        setDoc(d.doc);
      } catch (e) {
        setLoadError((e as Error).message);
      }
    })();
  }, []);

  const body = doc ? bodyAt(doc, path) : null;
  const [ports, setPorts] = useState<PutAnswer["ports"] | null>(null);
  const portsFn = useCallback((name: string): Ports => {
    const b = body?.blocks[name];
    if (!b || !body) return { inputs: [], outputs: [] };
    const known = path.length === 0 ? ports?.[name] : ports?.[[...path, name].join("/")];
    return portsOf(name, b, catalog, body, known);
  }, [body, catalog, ports, path]);

  // -- problems: load problems of the last PUT, and the last check --------------------------
  const marks: Attributed[] = useMemo(() => {
    const out: Attributed[] = [];
    if (putAnswer && !putAnswer.ok) out.push(...attributeAll(putAnswer.problems, putAnswer.marks));
    if (check && !check.ok) out.push(...attributeAll(check.problems, check.marks));
    return out;
  }, [putAnswer, check]);
  // a problem inside a subsystem marks the subsystem's block on the levels above it
  const here = (p: string[] | null) => p !== null && p.length > path.length
    && path.every((s, i) => p[i] === s);
  const blockMarks = useMemo(() => {
    const m = new Map<string, Attributed[]>();
    for (const a of marks) {
      if (!here(a.block)) continue;
      const name = a.block![path.length];
      if (!m.has(name)) m.set(name, []);
      m.get(name)!.push(a);
    }
    return m;
  }, [marks, path]);

  // -- nodes and edges of the level shown ---------------------------------------------------
  const edgesHere = useMemo(() => (body ? edgesOf(body, portsFn) : []), [body, portsFn]);
  useEffect(() => {
    if (!doc || !body) return;
    setNodes((prev) => {
      const old = new Map(prev.map((n) => [n.id, n]));
      return Object.entries(body.blocks).map(([name, b], i) => {
        const p = portsFn(name);
        const key = layoutKey(path, name);
        const pos = positionOf(doc, key) ?? autoPos[key] ?? old.get(name)?.position
          ?? { x: 40 + 200 * (i % 5), y: 40 + 120 * Math.floor(i / 5) };
        const signs = b.type === "Sum" && typeof b.params?.signs === "string"
          ? b.params.signs.replace(/[^+-]/g, "") : b.type === "Sum" && !b.params?.signs ? "++" : null;
        const data: BlockData = {
          name, type: b.type, summary: summary(b), inputs: p.inputs, outputs: p.outputs,
          signs, problems: (blockMarks.get(name) ?? []).map((a) => a.block!.length > path.length + 1
            ? `${a.block!.slice(path.length).join("/")}: ${a.message}`
            : a.param ? `${a.param}: ${a.message}` : a.message),
          subsystem: b.type === "Subsystem" && !!b.diagram, unknown: catalog.size > 0 && !catalog.has(b.type),
          onRename: (o, n) => rename(o, n), onOpen: (n) => open(n),
        };
        const was = old.get(name);
        return { id: name, type: "block", position: pos, data, selected: was?.selected ?? false,
          measured: was?.measured, width: NODE_WIDTH, height: nodeHeight(p.inputs.length, p.outputs.length) };
      });
    });
  }, [doc, body, path, autoPos, portsFn, blockMarks, catalog]);

  // a level whose blocks have no positions is laid out automatically
  useEffect(() => {
    if (!doc || !body) return;
    const names = Object.keys(body.blocks);
    const missing = names.filter((n) => !positionOf(doc, layoutKey(path, n)) && !autoPos[layoutKey(path, n)]);
    if (!missing.length) return;
    runLayout(missing.length === names.length ? names : null).then((pos) => {
      if (!pos) return;
      const next: Record<string, XY> = { ...autoPos };
      for (const n of missing) if (pos[n]) next[layoutKey(path, n)] = pos[n];
      setAutoPos(next);
      window.setTimeout(() => fit(), 50);
    });
  }, [doc, path]);

  const runLayout = async (only: string[] | null): Promise<Record<string, XY> | null> => {
    if (!body) return null;
    const names = Object.keys(body.blocks);
    if (only && only.length < names.length) {
      // new blocks without positions (e.g. a pasted document): put them below the others
      const ys = nodes.map((n) => n.position.y + (n.height ?? 80));
      const y0 = ys.length ? Math.max(...ys) + 40 : 40;
      return Object.fromEntries(only.map((n, i) => [n, { x: 40 + 200 * i, y: y0 }]));
    }
    try {
      return await autoLayout(names.map((n) => {
        const p = portsFn(n);
        return { id: n, width: NODE_WIDTH, height: nodeHeight(p.inputs.length, p.outputs.length),
          inputs: p.inputs, outputs: p.outputs };
      }), edgesHere);
    } catch (e) {
      setStatus(`layout failed: ${(e as Error).message}`);
      return null;
    }
  };

  const edges: WireEdgeType[] = useMemo(() => {
    const seen = new Set<string>();
    return edgesHere.map((e) => {
      let id = `${e.from}->${e.to}`;
      while (seen.has(id)) id += "'";
      seen.add(id);
      const problems = marks.filter((a) =>
        a.wirePath.join("/") === path.join("/")
        && (a.wire === `${e.from}->${e.to}` || (a.wire === null && a.wireIndex === e.wire)))
        .map((a) => a.message);
      const [source, sourceHandle] = [e.from.split(".")[0], e.from.slice(e.from.indexOf(".") + 1)];
      const [target, targetHandle] = [e.to.split(".")[0], e.to.slice(e.to.indexOf(".") + 1)];
      return { id, type: "wire", source, sourceHandle, target, targetHandle,
        selected: selEdges.has(id), data: { wire: `${e.from}->${e.to}`, problems },
        markerEnd: { type: MarkerType.ArrowClosed, width: 16, height: 16 } };
    });
  }, [edgesHere, marks, selEdges, path]);

  // every wire of the level is drawn once its blocks' handles are measured; when React Flow
  // missed a measurement (its handles came while the block was being measured), the blocks
  // are measured again (a few times at most for one set of wires)
  const updateInternals = useUpdateNodeInternals();
  const remeasured = useRef({ key: "", tries: 0 });
  useEffect(() => {
    const key = `${path.join("/")}|${edges.map((e) => e.id).join(",")}`;
    if (remeasured.current.key !== key) remeasured.current = { key, tries: 0 };
    const timer = window.setTimeout(() => {
      const drawn = canvas.current?.querySelectorAll(".react-flow__edge").length ?? 0;
      if (drawn < edges.length && remeasured.current.tries < 5 && nodes.length) {
        remeasured.current.tries += 1;
        updateInternals(nodes.map((n) => n.id));
      }
    }, 250);
    return () => window.clearTimeout(timer);
  });

  // -- editing ---------------------------------------------------------------------------
  const put = useCallback((d: Doc) => {
    const seq = ++putSeq.current;
    syncChain.current = syncChain.current.then(async () => {
      try {
        const a = await api<PutAnswer>("PUT", "/api/diagram", d);
        if (seq === putSeq.current) {
          setPutAnswer(a);
          if (a.ports) setPorts(a.ports);
          setStatus(a.ok ? "" : `${a.problems.length} problem(s)`);
        }
      } catch (e) {
        setStatus(`not sent: ${(e as Error).message}`);
      }
    });
  }, []);
  const sync = useCallback(() => syncChain.current, []);

  const edit = useCallback((fn: (d: Doc, body: NonNullable<ReturnType<typeof bodyAt>>) => void | false) => {
    const cur = docRef.current;
    if (!cur) return false;
    const next = clone(cur);
    const b = bodyAt(next, path);
    if (!b) return false;
    if (fn(next, b) === false) return false;
    past.current.push(cur);
    if (past.current.length > 200) past.current.shift();
    future.current = [];
    setHistoryTick((t) => t + 1);
    docRef.current = next;
    setDoc(next);
    setCheck(null);
    put(next);
    return true;
  }, [path, put]);

  const undo = useCallback(() => {
    const prev = past.current.pop();
    if (!prev || !docRef.current) return;
    future.current.push(docRef.current);
    docRef.current = prev;
    setDoc(prev); setCheck(null); put(prev); setHistoryTick((t) => t + 1);
    if (!bodyAt(prev, path)) setPath([]);
  }, [put, path]);
  const redo = useCallback(() => {
    const next = future.current.pop();
    if (!next || !docRef.current) return;
    past.current.push(docRef.current);
    docRef.current = next;
    setDoc(next); setCheck(null); put(next); setHistoryTick((t) => t + 1);
    if (!bodyAt(next, path)) setPath([]);
  }, [put, path]);

  const positionsHere = (): Record<string, XY> => Object.fromEntries(
    nodes.map((n) => [layoutKey(path, n.id), n.position]));

  const rename = (old: string, neu: string): boolean => {
    if (old === neu) return true;
    const cur = docRef.current;
    const b = cur && bodyAt(cur, path);
    if (!b || !BLOCK_NAME.test(neu) || neu in b.blocks) return false;
    return edit((d) => {
      const pos = positionOf(d, layoutKey(path, old)) ?? nodes.find((n) => n.id === old)?.position;
      renameBlock(d, path, old, neu);
      if (pos && !positionOf(d, layoutKey(path, neu))) setPositions(d, { [layoutKey(path, neu)]: pos });
      setNodes((ns) => ns.map((n) => (n.id === old ? { ...n, id: neu } : n)));
    });
  };

  const open = (name: string) => {
    const cur = docRef.current;
    if (!cur) return;
    const b = bodyAt(cur, path)?.blocks[name];
    if (!b?.diagram) return;
    setNodes([]);
    setSelEdges(new Set());
    setPath((p) => [...p, name]);
  };
  const goUp = (depth: number) => {
    setNodes([]);
    setSelEdges(new Set());
    setPath((p) => p.slice(0, depth));
  };

  const addBlock = (type: string, at: XY) => {
    const entry = catalog.get(type);
    edit((d, b) => {
      const name = freshName(b, type);
      const block: BlockDoc = { type };
      if (type === "Subsystem") {
        block.diagram = { blocks: { u: { type: "Inport" }, y: { type: "Outport" } },
          wires: [{ from: "u", to: "y" }] };
      } else if (entry) {
        const req = entry.parameters.filter((p) => p.required);
        if (req.length) {
          block.params = {};
          // a required parameter starts at 1 (a number the user then edits) where it is numeric
          for (const p of req) if (!p.strings) block.params[p.name] = 1;
        }
      }
      b.blocks[name] = block;
      setPositions(d, { [layoutKey(path, name)]: { x: at.x - NODE_WIDTH / 2, y: at.y - 30 } });
      window.setTimeout(() => setNodes((ns) => ns.map((n) => ({ ...n, selected: n.id === name }))), 0);
    });
  };

  const selectedNames = nodes.filter((n) => n.selected).map((n) => n.id);

  const deleteSelected = () => {
    const names = new Set(selectedNames);
    const wires = edges.filter((e) => selEdges.has(e.id));
    if (!names.size && !wires.length) return;
    edit((_d, b) => {
      const es = edgesOf(b, portsFn).filter((e) => wires.some((w) => w.data?.wire === `${e.from}->${e.to}`));
      // remove from the last so the indexes of the others stay right
      es.sort((x, y) => y.wire - x.wire || y.index - x.index).forEach((e) => removeEdge(b, e));
      if (names.size) removeBlocks(b, names);
    });
    setSelEdges(new Set());
  };

  const copy = () => {
    const cur = docRef.current;
    const b = cur && bodyAt(cur, path);
    if (!b || !selectedNames.length) return;
    const names = new Set(selectedNames);
    const blocks = selectedNames.map((n): [string, BlockDoc, XY] =>
      [n, clone(b.blocks[n]), nodes.find((x) => x.id === n)!.position]);
    const wires = edgesOf(b, portsFn)
      .filter((e) => names.has(e.from.split(".")[0]) && names.has(e.to.split(".")[0]))
      .map((e) => ({ from: e.from, to: e.to }));
    clip.current = { blocks, wires };
    setStatus(`copied ${blocks.length} block(s)`);
  };
  const paste = () => {
    const c = clip.current;
    if (!c) return;
    const newNames: string[] = [];
    edit((d, b) => {
      const map = new Map<string, string>();
      const taken = new Set<string>();
      for (const [n, block, pos] of c.blocks) {
        const neu = n in b.blocks || taken.has(n) ? freshName(b, block.type, taken) : n;
        taken.add(neu);
        map.set(n, neu);
        b.blocks[neu] = clone(block);
        setPositions(d, { [layoutKey(path, neu)]: { x: pos.x + 40, y: pos.y + 40 } });
        newNames.push(neu);
      }
      const re = (end: string) => { const i = end.indexOf("."); return map.get(end.slice(0, i)) + end.slice(i); };
      if (c.wires.length && !Array.isArray(b.wires)) b.wires = [];
      for (const w of c.wires) b.wires!.push({ from: re(w.from), to: re(w.to as string) });
    });
    window.setTimeout(() => setNodes((ns) => ns.map((n) => ({ ...n, selected: newNames.includes(n.id) }))), 0);
  };

  const relayout = async () => {
    const pos = await runLayout(null);
    if (!pos) return;
    edit((d) => setPositions(d, Object.fromEntries(Object.entries(pos).map(([n, p]) => [layoutKey(path, n), p]))));
    window.setTimeout(() => fit(), 50);
  };

  const doCheck = async () => {
    setStatus("checking…");
    try {
      await sync();
      const a = await api<CheckAnswer>("POST", "/api/check");
      setCheck(a);
      if (a.ports) setPorts(a.ports);
      setStatus(a.ok ? "check: OK" : `check: ${a.problems.length} problem(s)`);
    } catch (e) {
      setStatus(`check failed: ${(e as Error).message}`);
    }
  };

  const save = async () => {
    const cur = docRef.current;
    if (!cur) return;
    // the positions of the level shown, and those laid out automatically, go into layout
    const d = clone(cur);
    const pos: Record<string, XY> = { ...autoPos };
    for (const [k, p] of Object.entries(positionsHere())) pos[k] = p;
    const lay: Record<string, XY> = {};
    for (const [k, p] of Object.entries(pos)) {
      const parts = k.split("/");
      const b = bodyAt(d, parts.slice(0, -1));
      if (b && parts[parts.length - 1] in b.blocks) lay[k] = p;
    }
    setPositions(d, lay);
    if (JSON.stringify(d) !== JSON.stringify(cur)) {
      past.current.push(cur);
      future.current = [];
      docRef.current = d;
      setDoc(d);
      put(d);
    }
    setStatus("saving…");
    try {
      await sync();
      const a = await api<{ ok: boolean; path: string }>("POST", "/api/save",
        saveName.trim() ? { path: saveName.trim() } : {});
      setFileName(a.path);
      setStatus(`saved ${a.path}`);
    } catch (e) {
      setStatus(`not saved: ${(e as Error).message}`);
    }
  };

  const download = () => {
    const cur = docRef.current;
    if (!cur) return;
    const blob = new Blob([JSON.stringify(cur, null, 2) + "\n"], { type: "application/json" });
    const a = document.createElement("a");
    a.href = URL.createObjectURL(blob);
    a.download = (fileName.split("/").pop() || "diagram.json");
    a.click();
    window.setTimeout(() => URL.revokeObjectURL(a.href), 1000);
  };

  // -- React Flow callbacks --------------------------------------------------------------
  const onNodesChange = useCallback((changes: NodeChange<Node<BlockData>>[]) => {
    setNodes((ns) => applyNodeChanges(changes.filter((c) => c.type !== "remove"), ns));
  }, []);
  const onEdgesChange = useCallback((changes: EdgeChange<WireEdgeType>[]) => {
    setSelEdges((s) => {
      const n = new Set(s);
      for (const c of changes) if (c.type === "select") { if (c.selected) n.add(c.id); else n.delete(c.id); }
      return n;
    });
  }, []);
  const onConnect = useCallback((c: Connection) => {
    if (!c.source || !c.target || !c.sourceHandle || !c.targetHandle) return;
    edit((_d, b) => connect(b, `${c.source}.${c.sourceHandle}`, `${c.target}.${c.targetHandle}`, portsFn));
  }, [edit, portsFn]);
  const onNodeDragStop = useCallback((_e: unknown, _n: Node, moved: Node[]) => {
    const cur = docRef.current;
    if (!cur) return;
    const changed = moved.filter((n) => {
      const p = positionOf(cur, layoutKey(path, n.id));
      return !p || Math.abs(p.x - n.position.x) > 1 || Math.abs(p.y - n.position.y) > 1;
    });
    if (!changed.length) return;
    edit((d) => setPositions(d, Object.fromEntries(changed.map((n) => [layoutKey(path, n.id), n.position]))));
  }, [edit, path]);

  // -- placing from the palette: drag with the mouse, or click then click the canvas ----------
  const inCanvas = (x: number, y: number) => {
    const r = canvas.current?.getBoundingClientRect();
    return !!r && x >= r.left && x <= r.right && y >= r.top && y <= r.bottom;
  };
  const pressPalette = (type: string, e: React.MouseEvent) => {
    const x0 = e.clientX, y0 = e.clientY;
    let moved = false;
    const move = (ev: MouseEvent) => {
      if (Math.abs(ev.clientX - x0) + Math.abs(ev.clientY - y0) > 4) moved = true;
      if (moved) setGhost({ type, x: ev.clientX, y: ev.clientY });
    };
    const up = (ev: MouseEvent) => {
      window.removeEventListener("mousemove", move);
      window.removeEventListener("mouseup", up);
      setGhost(null);
      if (moved && inCanvas(ev.clientX, ev.clientY)) {
        setArmed(null);
        addBlock(type, flow.screenToFlowPosition({ x: ev.clientX, y: ev.clientY }));
      } else if (!moved) {
        setArmed((a) => (a === type ? null : type));
      }
    };
    window.addEventListener("mousemove", move);
    window.addEventListener("mouseup", up);
  };
  const onPaneClick = (e: React.MouseEvent) => {
    if (armed) {
      addBlock(armed, flow.screenToFlowPosition({ x: e.clientX, y: e.clientY }));
      setArmed(null);
    }
  };

  // -- keys ------------------------------------------------------------------------------
  const keys = useRef<(e: KeyboardEvent) => void>(() => undefined);
  keys.current = (e: KeyboardEvent) => {
    const t = e.target as HTMLElement;
    if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT")) return;
    const ctrl = e.ctrlKey || e.metaKey;
    const k = e.key.toLowerCase();
    if (e.key === "Delete" || e.key === "Backspace") { e.preventDefault(); deleteSelected(); }
    else if (ctrl && k === "z" && !e.shiftKey) { e.preventDefault(); undo(); }
    else if (ctrl && (k === "y" || (k === "z" && e.shiftKey))) { e.preventDefault(); redo(); }
    else if (ctrl && k === "c") { e.preventDefault(); copy(); }
    else if (ctrl && k === "v") { e.preventDefault(); paste(); }
    else if (ctrl && k === "s") { e.preventDefault(); save(); }
    else if (e.key === "Escape") {
      setArmed(null);
      setNodes((ns) => ns.map((n) => (n.selected ? { ...n, selected: false } : n)));
      setSelEdges(new Set());
    }
  };
  useEffect(() => {
    const h = (e: KeyboardEvent) => keys.current(e);
    window.addEventListener("keydown", h);
    return () => window.removeEventListener("keydown", h);
  }, []);

  if (loadError) return <div className="load-error" data-load-error="">Cannot open the diagram: {loadError}</div>;
  if (!doc || !body) return <div className="loading">loading the diagram and the block catalog…</div>;

  const one = selectedNames.length === 1 ? selectedNames[0] : null;
  const report = check?.report ?? [];
  const loadProblems = putAnswer && !putAnswer.ok ? putAnswer.problems : [];
  return (
    <div className={`app${armed ? " placing" : ""}`}>
      <header className="toolbar">
        <span className="title" data-file={fileName}>blocksim edit — <b>{fileName}</b></span>
        <button data-action="undo" onClick={undo} disabled={!past.current.length} title="Ctrl-Z">↶ undo</button>
        <button data-action="redo" onClick={redo} disabled={!future.current.length} title="Ctrl-Y">↷ redo</button>
        <button data-action="delete" onClick={deleteSelected} disabled={!selectedNames.length && !selEdges.size} title="Delete">delete</button>
        <button data-action="copy" onClick={copy} disabled={!selectedNames.length} title="Ctrl-C">copy</button>
        <button data-action="paste" onClick={paste} title="Ctrl-V">paste</button>
        <button data-action="layout" onClick={relayout} title="automatic layered layout">layout</button>
        <span className="sep" />
        <button data-action="check" onClick={doCheck}>check</button>
        <span className="sep" />
        <input className="save-name" data-save-name="" placeholder={fileName} value={saveName}
               onChange={(e) => setSaveName(e.target.value)} title="save as (a .json file in the editor's folder)" />
        <button data-action="save" onClick={save} title="Ctrl-S">save</button>
        <button data-action="download" onClick={download} title="download the document">download</button>
        <span className="status" data-status="">{status}</span>
      </header>
      <Palette catalog={catalogList} armed={armed} onPress={pressPalette} />
      <main className="canvas" ref={canvas} data-edges={edges.length}>
        <nav className="breadcrumb" data-breadcrumb={["", ...path].join("/") || "/"}>
          <a data-crumb="" onClick={() => goUp(0)}>{String(doc.name ?? fileName)}</a>
          {path.map((p, i) => (
            <span key={i}> / <a data-crumb={path.slice(0, i + 1).join("/")} onClick={() => goUp(i + 1)}>{p}</a></span>
          ))}
          {armed && <span className="hint"> — click the canvas to place {armed} (Esc: cancel)</span>}
        </nav>
        <ReactFlow
          nodes={nodes} edges={edges} nodeTypes={nodeTypes} edgeTypes={edgeTypes}
          onNodesChange={onNodesChange} onEdgesChange={onEdgesChange} onConnect={onConnect}
          onNodeDragStop={onNodeDragStop} onPaneClick={onPaneClick}
          isValidConnection={(c) => c.source !== c.target || c.sourceHandle !== c.targetHandle}
          deleteKeyCode={null} selectionKeyCode="Shift" multiSelectionKeyCode="Shift"
          minZoom={0.1} maxZoom={3}
          proOptions={{ hideAttribution: true }} connectionRadius={24}
        >
          <Background gap={20} size={1} />
          <Controls showInteractive={false} />
        </ReactFlow>
        {Object.keys(body.blocks).length === 0 && (
          <div className="empty-hint">Drag blocks here from the palette, or click one and then click here.</div>
        )}
        {loadProblems.length > 0 && (
          <div className="load-problems" data-load-problems="">
            {loadProblems.map((p, i) => <div key={i}>{p}</div>)}
          </div>
        )}
      </main>
      <aside className="side">
        <section className="block-section">
          {one && body.blocks[one] ? (
            <ParamPanel name={one} block={body.blocks[one]} entry={catalog.get(body.blocks[one].type)}
                        problems={(blockMarks.get(one) ?? []).filter((a) => a.block!.length === path.length + 1)
                          .map((a) => ({ param: a.param, message: a.message }))}
                        onRename={rename} onOpen={() => open(one)}
                        onParam={(p, v) => edit((_d, b) => {
                          const blk = b.blocks[one];
                          if (v === undefined) {
                            if (!blk.params || !(p in blk.params)) return false;
                            delete blk.params[p];
                            if (!Object.keys(blk.params).length) delete blk.params;
                          } else {
                            blk.params = { ...(blk.params ?? {}), [p]: v as Json };
                          }
                        })} />
          ) : (
            <DiagramPanel
              parameters={body.parameters && typeof body.parameters === "object" && !Array.isArray(body.parameters)
                ? body.parameters as Obj : null}
              problems={path.length ? [] : marks.filter((m) => m.block === null && m.param)
                .map((m) => ({ param: m.param, message: m.message }))}
              onSet={(k, v) => edit((_d, b) => {
                const ps = b.parameters && typeof b.parameters === "object" && !Array.isArray(b.parameters)
                  ? b.parameters as Obj : {};
                if (v === undefined) {
                  if (!(k in ps)) return false;
                  delete ps[k];
                  if (Object.keys(ps).length) b.parameters = ps; else delete b.parameters;
                } else {
                  b.parameters = { ...ps, [k]: v };
                }
              })} />
          )}
        </section>
        <section className="report-section">
          {check ? (
            <pre className={`report ${check.ok ? "ok" : "bad"}`} data-report={check.ok ? "ok" : "problems"}>{report.join("\n")}</pre>
          ) : <p className="muted small">“check” checks the diagram as <code>blocksim check</code> does.</p>}
        </section>
      </aside>
      <section className="bottom">
        <RunPanel doc={doc} sync={sync} />
      </section>
      {ghost && <div className="ghost" style={{ left: ghost.x + 8, top: ghost.y + 8 }}>{ghost.type}</div>}
    </div>
  );
}

/** Whether a block of the document (at any level) has a type whose ports the catalog does not
 * list (they depend on its parameters). */
function needsPorts(doc: Doc, cat: CatalogEntry[]): boolean {
  const unknown = new Set(cat.filter((e) => e.type !== "Subsystem" && !e.inputs.length
    && !e.outputs.length).map((e) => e.type));
  const walk = (b: { blocks?: Record<string, BlockDoc> }): boolean =>
    Object.values(b.blocks ?? {}).some((x) => unknown.has(x.type)
      || (x.type === "Subsystem" && typeof x.file === "string")
      || (x.diagram && typeof x.diagram === "object" ? walk(x.diagram) : false));
  return walk(doc);
}

async function fetchDiagram(): Promise<{ doc: Doc; name: string }> {
  const token = new URLSearchParams(window.location.search).get("token") ?? "";
  const resp = await fetch("/api/diagram", { headers: token ? { Authorization: `token ${token}` } : {} });
  if (!resp.ok) throw new Error((await resp.json().catch(() => ({ error: resp.statusText }))).error);
  return { doc: sanitize(await resp.json()), name: resp.headers.get("X-Blocksim-File") ?? "untitled.json" };
}

export default function App() {
  return (
    <ReactFlowProvider>
      <Editor />
    </ReactFlowProvider>
  );
}
