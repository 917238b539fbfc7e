//! The app's OTLP/HTTP trace receiver (the core's `otlp::receiver`, as `serve --otlp` runs it):
//! started with the app on 127.0.0.1:4318, its calls going to the store the `live_calls` command
//! reads (the Live view). Where it listens is [`OTLP_ENV`]; an address that cannot be bound
//! (another collector already on 4318) leaves the app running without it, the reason in the
//! store's receiver status, which the Live view shows.

use std::net::SocketAddr;
use std::sync::Arc;

use prompt_inspector::otlp::{receiver, CallStore, ReceiverStatus};

/// `PROMPT_INSPECTOR_OTLP`: where the receiver listens, as `--otlp` takes it (`off`, a port, or a
/// loopback `HOST:PORT`); unset, 127.0.0.1:4318.
pub const OTLP_ENV: &str = "PROMPT_INSPECTOR_OTLP";

/// The address [`OTLP_ENV`] asks for (`None`: turned off), or why it is not one.
pub fn address_from(setting: Option<&str>) -> Result<Option<SocketAddr>, String> {
    match setting {
        None => Ok(Some(receiver::default_addr())),
        Some(text) => receiver::parse_addr(text).map_err(|e| format!("{OTLP_ENV}: {e}")),
    }
}

/// Starts the receiver on Tauri's async runtime as [`OTLP_ENV`] says, its calls going to `store`.
/// Never fails the app: whatever stops it is the store's receiver status (and a warning).
pub fn start(store: Arc<CallStore>) {
    let setting = std::env::var(OTLP_ENV).ok();
    let addr = match address_from(setting.as_deref()) {
        Ok(Some(addr)) => addr,
        Ok(None) => {
            tracing::info!("otlp receiver turned off ({OTLP_ENV}=off)");
            store.set_receiver(ReceiverStatus {
                endpoint: None,
                error: Some(format!("turned off ({OTLP_ENV}=off)")),
            });
            return;
        }
        Err(why) => {
            tracing::warn!("otlp receiver not started: {why}");
            store.set_receiver(ReceiverStatus {
                endpoint: None,
                error: Some(why),
            });
            return;
        }
    };
    // Until the address is bound the status has neither an endpoint nor an error: starting.
    tauri::async_runtime::spawn(async move {
        // Bound inside the runtime: the listener registers with its reactor.
        let listener = match receiver::bind(addr) {
            Ok(l) => l,
            Err(e) => {
                let why = format!("cannot listen on {addr}: {e}");
                tracing::warn!("otlp receiver not started: {why}");
                store.set_receiver(ReceiverStatus {
                    endpoint: None,
                    error: Some(why),
                });
                return;
            }
        };
        let endpoint = receiver::endpoint(listener.local_addr().unwrap_or(addr));
        store.set_receiver(ReceiverStatus {
            endpoint: Some(endpoint.clone()),
            error: None,
        });
        tracing::info!(%endpoint, "otlp receiver listening");
        let sink_store = Arc::clone(&store);
        let sink: receiver::Sink = Arc::new(move |calls| {
            sink_store.push(calls);
            Ok(())
        });
        // Never told to stop: it ends with the app.
        let (_keep_open, shutdown) = tokio::sync::watch::channel(false);
        receiver::serve(listener, sink, shutdown).await;
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_setting_is_read_as_otlp_is() {
        assert_eq!(address_from(None), Ok(Some(receiver::default_addr())));
        assert_eq!(address_from(Some("off")), Ok(None));
        assert_eq!(
            address_from(Some("4400")),
            Ok(Some(SocketAddr::from(([127, 0, 0, 1], 4400))))
        );
        let refused = address_from(Some("0.0.0.0:4318")).unwrap_err();
        assert!(refused.starts_with("PROMPT_INSPECTOR_OTLP: "), "{refused}");
        assert!(refused.contains("loopback"), "{refused}");
    }
}
