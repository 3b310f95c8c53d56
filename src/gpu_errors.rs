//! wgpu errors as typed errors: everything the crate does on a device runs inside error scopes,
//! so a validation error, an allocation failure or an internal error comes back as
//! [`Error::Gpu`] instead of reaching wgpu's default handler (which panics).
//!
//! In a browser an error scope resolves only from the event loop, so a synchronous call cannot
//! wait for it; there no scopes are pushed and errors reach the device's uncaptured-error
//! handler (which [`crate::Context::headless_async`] sets to log them to the console).

use crate::error::Error;

/// Error scopes for validation, out-of-memory and internal errors, popped together.
pub(crate) struct ErrorScope {
    #[cfg(not(target_arch = "wasm32"))]
    guards: Vec<wgpu::ErrorScopeGuard>,
}

impl ErrorScope {
    /// Pushes the three scopes (none in a browser).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn push(device: &wgpu::Device) -> Self {
        let guards = [
            wgpu::ErrorFilter::Internal,
            wgpu::ErrorFilter::OutOfMemory,
            wgpu::ErrorFilter::Validation,
        ]
        .into_iter()
        .map(|filter| device.push_error_scope(filter))
        .collect();
        ErrorScope { guards }
    }

    /// Pushes nothing: a scope's error could not be read synchronously, and a scope popped
    /// without being awaited would drop it instead of passing it to the uncaptured-error handler.
    #[cfg(target_arch = "wasm32")]
    pub fn push(_device: &wgpu::Device) -> Self {
        ErrorScope {}
    }

    /// Pops the scopes (innermost first) and returns the first error any of them caught; the
    /// result is ready at once on native backends. Always `None` in a browser (see the module
    /// documentation).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn pop(mut self) -> Option<Error> {
        let mut first = None;
        for guard in std::mem::take(&mut self.guards).into_iter().rev() {
            if let Some(e) = pollster::block_on(guard.pop()) {
                first.get_or_insert(Error::from(e));
            }
        }
        first
    }

    /// Always `None`: in a browser errors go to the uncaptured-error handler.
    #[cfg(target_arch = "wasm32")]
    pub fn pop(self) -> Option<Error> {
        None
    }
}

#[cfg(not(target_arch = "wasm32"))]
impl Drop for ErrorScope {
    /// Scopes left unpopped (an early return) are popped innermost first: wgpu panics on any
    /// other order, and a `Vec` would drop its guards outermost first.
    fn drop(&mut self) {
        while let Some(guard) = self.guards.pop() {
            drop(guard);
        }
    }
}
