// The table of the shell's own commands, included by build.rs too (it lists the app's permissions).

/// The table of what only the desktop shell does: system dialogs, the close guard's flag and the
/// page's answer to its Save, app info. Each is a function of commands.rs, generic over the Tauri
/// runtime. Expanded into `COMMANDS` (command_names.rs) and into the bindings builder (`specta_builder!`), the
/// way the core's `for_each_operation!` is.
#[macro_export]
#[doc(hidden)]
macro_rules! for_each_shell_command {
    ([$($callback:tt)+] $($extra:tt)*) => {
        $($callback)+! {
            [$($extra)*]
            pick_open_path
            pick_save_path
            pick_folder
            set_dirty
            close_guard_done
            recent_files
            clear_recent
            app_info
        }
    };
}
