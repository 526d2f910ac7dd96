// Calls of the editor's JSON API (docs/editor.md). The page's address carries the token; the
// server also set a cookie, and every call sends the token as a header too.

const token = new URLSearchParams(window.location.search).get("token") ?? "";

export class ApiError extends Error {
  constructor(public status: number, message: string, public body: any) {
    super(message);
  }
}

export async function api<T = any>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = {};
  if (token) headers.Authorization = `token ${token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const resp = await fetch(path, {
    method, headers, credentials: "same-origin",
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const type = resp.headers.get("Content-Type") ?? "";
  const data = type.startsWith("application/json") ? await resp.json() : await resp.text();
  if (!resp.ok) {
    const msg = data && typeof data === "object" && data.error ? data.error : `${resp.status}`;
    throw new ApiError(resp.status, msg, data);
  }
  return data as T;
}

/** A link to an API resource that works without the header (the token in the query). */
export const withToken = (path: string) =>
  token ? `${path}${path.includes("?") ? "&" : "?"}token=${encodeURIComponent(token)}` : path;

export interface Mark { message: string; block?: string | null; param?: string | null;
  wire?: string | null }
export interface PutAnswer { ok: boolean; problems: string[]; marks?: Mark[];
  ports?: Record<string, { inputs: string[]; outputs: string[] }> }
export interface CheckAnswer { ok: boolean; report: string[]; problems: string[]; marks?: Mark[];
  ports?: Record<string, { inputs: string[]; outputs: string[] }> }
