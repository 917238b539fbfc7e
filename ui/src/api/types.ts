// Shapes of the core's reports, as `prompt-inspector render|rules|run --format json` print them
// (docs/cli.md). Fields the UI does not read are left as `unknown`.

export type Llm = 'chat' | 'desk';

export interface Piece {
  source: 'config' | 'tool';
  index?: number;
  tool?: string;
  text: string;
  range: [number, number];
  tokens?: number;
  attachments?: unknown[];
}

export interface SegmentReport {
  name: string;
  legal: boolean;
  rule?: string;
  text: string;
  bytes: number;
  tokens?: number;
  messages?: number;
  pieces: Piece[];
}

export interface Message {
  role: string;
  content: unknown;
  segment: string;
  tokens?: number;
  name?: string;
  tool_call_id?: string;
  tool_calls?: unknown;
}

export type ToolStatus = 'injected' | 'rendered_empty' | 'empty' | 'silent' | 'undeclared' | 'invalid' | 'error' | 'protocol_error';

export interface ToolReport {
  name: string;
  status: ToolStatus;
  position?: string | null;
}

export interface Diagnostic {
  level: 'error' | 'warning';
  code: string;
  message: string;
  tool?: string;
  segment?: string;
  prompt?: number;
}

export interface Metrics {
  tools_total: number;
  tools_rendered: number;
  bytes: number;
  positions: Record<string, number>;
}

export interface Report {
  llm: Llm;
  tokenizer?: string;
  messages?: Message[];
  request?: unknown;
  segments: SegmentReport[];
  tools: ToolReport[];
  diagnostics: Diagnostic[];
  metrics: Metrics;
}

export interface RuleSegment {
  name: string;
  family: Llm;
  order: number;
  legal: boolean;
  purpose: string;
  rule?: string;
  reason?: string;
}
export interface Rule {
  id: string;
  title: string;
  reason: string;
  segments: string[];
}
export interface Rules {
  segments: RuleSegment[];
  rules: Rule[];
}

export interface RunIteration {
  request: { role: string; content: unknown; cache_hint?: string }[];
  injected: string[];
  cache: {
    system_identical: boolean | null;
    common_prefix_bytes: number | null;
    common_prefix_tokens: number | null;
    request_bytes: number;
    request_tokens: number;
    openai_cached_tokens: number | null;
    anthropic_cached_tokens: number | null;
  };
  assistant?: unknown;
  tools?: string[];
  cwd?: string;
  dynamic_context?: string | null;
  appended_to?: string;
}
export interface RunReport {
  iterations: RunIteration[];
  [k: string]: unknown;
}

/** docs/api.md `validate`: a template's compile/syntax error, range in the template text. */
export interface TemplateProblem {
  kind: string;
  message: string;
  range?: [number, number];
  line?: number;
  column?: number;
}

export interface TemplateEntry {
  path: string;
  owner: 'config' | 'tool';
  tool: string | null;
  segment: string | null;
  engine: 'fstring' | 'jinja2';
  locale: string;
  span: [number, number];
  error: TemplateProblem | null;
}

export interface ToolValidity {
  index: number;
  name: string;
  valid: boolean;
  exception?: string;
  reason?: string;
  rule?: string;
  rule_reason?: string;
  family?: 'chat' | 'desk';
  message?: string;
}

export interface ValidateResponse {
  load_error: ApiError | null;
  templates: TemplateEntry[];
  tools: ToolValidity[];
}

export interface SceneText {
  path: string | null;
  text: string;
}
export interface FileStat {
  modified_ms: number;
  size: number;
}

export interface CheckScene {
  path: string;
  golden_path: string;
  status: 'ok' | 'mismatch' | 'missing_golden' | 'unreadable';
  golden: unknown;
  current: unknown;
  diff?: string | null;
  error: ApiError | null;
}
export interface CheckResponse {
  passed: number;
  failed: number;
  scenes: CheckScene[];
}

/** docs/api.md "Errors": a stable code, a message, and a position when there is one. */
export interface ApiError {
  code: string;
  message: string;
  kind?: string;
  file?: string;
  line?: number;
  column?: number;
  field?: string;
  range?: [number, number];
}

// Live documents (docs/api.md, "Live"): the core keeps the scene between keystrokes; each edit is a
// text splice in UTF-16 code units and the answer a patch of the page's `{chat, desk, validate}`.
export interface LiveOptions {
  base_dir: string | null;
  provider: 'openai' | 'anthropic' | null;
  tokenizer: 'o200k_base' | 'cl100k_base' | null;
  tokens: boolean;
}
export interface TextEdit {
  start: number;
  delete: number;
  insert: string;
}
export type PathStep = string | number;
export type PatchOp =
  | { op: 'set'; path: PathStep[]; value: unknown }
  | { op: 'remove'; path: PathStep[] }
  | { op: 'splice'; path: PathStep[]; start: number; delete: number; items: unknown[] };
export interface LiveUpdate {
  doc: number;
  revision: number;
  load_error: ApiError | null;
  patch: PatchOp[];
  core_ms: number;
}
export interface LiveTree {
  chat: Report;
  desk: Report;
  validate: ValidateResponse;
}
