// The operations of the app API, declared once (docs/api.md, docs/architecture.md "Adding an
// operation"). Each line is
//
//     name(Request) -> Response = |live, req| handler,
//
// or `name() -> Response = |live| handler` for an operation without a request. `name` is the
// operation's name everywhere: `POST /api/<name>`, the Tauri command, the ACL permission
// `allow-<name>` (dashes), the binding. The handler turns the shared state (`&Live`, the live
// documents) and the request into `Result<Response, ApiError>`; it is only compiled by the core,
// which wraps it as `api::op::<name>` (the one signature every front end calls).
//
// Nothing else lists the operations: each front end expands this table with a macro of its own,
// `for_each_operation!([its_macro] extra tokens)`, which receives `[extra tokens]` and then the
// lines. The core generates `api::op`, `OPERATIONS` and `dispatch` from it; the app its Tauri
// commands, its specta bindings builder and (in build.rs) its command list; `serve` routes through
// `dispatch`. Types are written bare and resolve where the table is expanded: an expansion brings
// `prompt_inspector::api::*` into scope.
//
// Plain `//` comments and nothing but the macro: src-tauri/build.rs `include!`s this file (a build
// script cannot depend on the core crate) to list the command names.

#[macro_export]
macro_rules! for_each_operation {
    ([$($callback:tt)+] $($extra:tt)*) => {
        $($callback)+! {
            [$($extra)*]
            /// The built-in example scene as text, with no path.
            default_scene() -> SceneText = |_| Ok($crate::api::default_scene());
            /// Reads a scene file as text (it need not load).
            open(PathRequest) -> SceneText = |_, req| $crate::api::open(&req);
            /// Writes a scene text to a file, atomically.
            save(SaveRequest) -> FileStat = |_, req| $crate::api::save(&req);
            /// A file's size and modification time.
            stat(PathRequest) -> FileStat = |_, req| $crate::api::stat(&req);
            /// The report of a scene for one LLM family.
            render(RenderRequest) -> RenderResponse = |_, req| $crate::api::render(&req);
            /// Every problem of a scene, located; never fails.
            validate(ValidateRequest) -> ValidateResponse = |_, req| Ok($crate::api::validate(&req));
            /// The segment table and the rules.
            rules() -> RulesResponse = |_| Ok($crate::api::rules());
            /// The built-in models table: prices and cache rules (the model picker).
            models() -> ModelsResponse = |_| Ok($crate::api::models());
            /// The core's name and version (the About box).
            about() -> AboutResponse = |_| Ok($crate::api::about());
            /// Replays a scene's recorded run.
            run(RunRequest) -> RunResponse = |_, req| $crate::api::run(&req);
            /// A folder of scenes, one per call: each call's cache figures, costs and misses.
            conversation(ConversationRequest) -> ConversationResponse = |_, req| $crate::api::conversation(&req);
            /// Checks a folder of scenes against their goldens.
            check(CheckRequest) -> CheckResponse = |_, req| $crate::api::check(&req);
            /// Writes a scene's golden from its current render.
            approve(ApproveRequest) -> ApproveResponse = |_, req| $crate::api::approve(&req);
            golden(GoldenRequest) -> GoldenResponse = |_, req| $crate::api::golden(&req);
            /// Recorded calls predicted against billed, with the cause of every cache miss.
            verify(VerifyRequest) -> VerifyResponse = |_, req| $crate::api::verify(&req);
            /// Renders a template with variables (the playground).
            template(TemplateRequest) -> TemplateResponse = |_, req| $crate::api::template(&req);
            /// Opens a live document on a scene text.
            live_open(LiveOpenRequest) -> LiveUpdate = |live, req| live.open(req);
            /// Applies an edit to a live document: what changed.
            live_edit(LiveEditRequest) -> LiveUpdate = |live, req| live.edit(req);
            /// Forgets a live document.
            live_close(LiveCloseRequest) -> () = |live, req| {
                live.close(&req);
                Ok(())
            };
            /// The LLM calls received over OTLP after a sequence number, and the receiver's state.
            live_calls(LiveCallsRequest) -> LiveCallsResponse = |live, req| $crate::api::live_calls(live, &req);
        }
    };
}
