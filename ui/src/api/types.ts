// The core's types as the UI reads them, every one generated from the Rust types (bindings.ts,
// written by `gen-bindings`; CI fails when it is not current). The core sends the `_Serialize`
// shapes, so those are the ones named here; nothing in this file is a hand-written copy.
import type * as B from './bindings';

export type Llm = B.Llm;
export type Report = B.Report_Serialize;
export type SegmentReport = B.SegmentOut_Serialize;
export type Piece = B.PieceOut_Serialize;
export type Message = B.MessageOut_Serialize;
export type ToolStatus = B.Status;
export type ToolReport = B.ToolOut_Serialize;
export type Diagnostic = B.Diagnostic_Serialize;
export type DiagnosticCode = B.DiagnosticCode;
export type Metrics = B.Metrics;
export type InputCost = B.InputCost;
export type SegmentCost = B.SegmentCost;
export type DefinitionCost = B.DefinitionCost;

export type ModelsResponse = B.ModelsResponse_Serialize;
export type AboutResponse = B.AboutResponse;
export type ModelInfo = B.ModelInfo_Serialize;

export type Rules = B.RulesResponse_Serialize;
export type RuleSegment = B.SegmentInfo_Serialize;
export type Rule = B.RuleInfo;

export type ValidateResponse = B.ValidateResponse_Serialize;
export type TemplateProblem = B.TemplateProblem_Serialize;
export type TemplateEntry = B.TemplateCheck_Serialize;
export type ToolValidity = B.ToolCheck_Serialize;

export type SceneText = B.SceneText_Serialize;
export type FileStat = B.FileStat;
export type CheckScene = B.CheckedScene_Serialize;
export type CheckResponse = B.CheckResponse_Serialize;
/** The core's errors, and the two a transport raises itself: the server unreachable (`network`)
 *  or the desktop shell's IPC failing (`ipc`). */
/** The core's errors, with the codes a transport adds: the server's HTTP-only ones (its own
 *  list, docs/api.md), an unreachable server (`network`), the shell's IPC failing (`ipc`). */
export type ApiError = Omit<B.ApiError_Serialize, 'code'> & { code: B.ErrorCode | TransportErrorCode };
export type TransportErrorCode = string;

export type LiveOptions = B.LiveOptions_Serialize;
/** One LLM call the OTLP receiver took in (`live_calls`). */
export type ReceivedCall = B.ReceivedCall_Serialize;
/** A `live_calls` answer: the calls after the cursor, the dropped count, the receiver's status. */
export type LiveCallsPage = B.CallsPage_Serialize;
export type ReceiverStatus = B.ReceiverStatus_Serialize;
export type TextEdit = B.TextEdit;
export type PathStep = B.PathStep;
export type PatchOp = B.PatchOp;
export type LiveUpdate = Omit<B.LiveUpdate_Serialize, 'load_error'> & { load_error: ApiError | null };
/** What a live document's patches apply to: the page's two reports and the validation. */
export interface LiveTree {
  chat: Report;
  desk: Report;
  validate: ValidateResponse;
}

export type RunReport = B.RunReport_Serialize;
export type RunIteration = B.IterationOut_Serialize;
export type RunMessage = B.RunMessageJson_Serialize;
export type ToolCall = B.ToolCallJson;
export type CacheFigures = B.Figures_Serialize;
export type ModelCost = B.ModelCost_Serialize;
export type CallCost = B.CallCost;
export type RunResponse = B.RunResponse_Serialize;
export type ZeroRead = B.ZeroRead_Serialize;
export type RecordedCall = B.CallResult_Serialize;
export type RecordedTotals = B.Totals;
export type WhatIfPrice = B.WhatIfPrice_Serialize;
export type ConversationResponse = B.ConversationResponse_Serialize;
export type ConversationCall = B.CallOut_Serialize;
export type Provenance = B.Provenance;
