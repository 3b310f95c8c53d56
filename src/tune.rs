//! Tuning knobs for benchmark sweeps on a GPU: `WGPU_SDPA_TUNE="key=value,key=value"` (unsigned
//! integers). A kernel family reads its own keys when it fits tiles, so one `sdpa bench` binary
//! can time several variants side by side in one device run. Unset keys leave the planner's
//! choices; the knobs never widen what the planner would accept (the host-side checks that make
//! unchecked shader modules sound still apply to every variant).

use std::sync::OnceLock;

fn knobs() -> &'static Vec<(String, u32)> {
    static KNOBS: OnceLock<Vec<(String, u32)>> = OnceLock::new();
    KNOBS.get_or_init(|| {
        std::env::var("WGPU_SDPA_TUNE")
            .unwrap_or_default()
            .split(',')
            .filter_map(|kv| {
                let (k, v) = kv.split_once('=')?;
                Some((k.trim().to_string(), v.trim().parse().ok()?))
            })
            .collect()
    })
}

/// The value of tuning knob `key`, if `WGPU_SDPA_TUNE` sets it.
pub(crate) fn knob(key: &str) -> Option<u32> {
    knobs().iter().find(|(k, _)| k == key).map(|&(_, v)| v)
}
