//! wgpu errors as typed errors: everything the crate does on a device runs inside error scopes,
//! so a validation error, an allocation failure or an internal error comes back as
//! [`Error::Gpu`] instead of reaching wgpu's default handler (which panics).

use crate::error::Error;

/// Error scopes for validation, out-of-memory and internal errors, popped together.
pub(crate) struct ErrorScope {
    guards: Vec<wgpu::ErrorScopeGuard>,
}

impl ErrorScope {
    /// Pushes the three scopes.
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

    /// Pops the scopes (innermost first) and returns the first error any of them caught.
    ///
    /// On native backends the result is ready at once. In a browser the scopes resolve only from
    /// the event loop, so there the errors go to the device's uncaptured-error handler instead.
    pub fn pop(mut self) -> Option<Error> {
        let mut first = None;
        for guard in std::mem::take(&mut self.guards).into_iter().rev() {
            let future = guard.pop();
            #[cfg(not(target_arch = "wasm32"))]
            {
                if let Some(e) = pollster::block_on(future) {
                    first.get_or_insert(Error::from(e));
                }
            }
            #[cfg(target_arch = "wasm32")]
            drop(future);
        }
        first
    }
}

impl Drop for ErrorScope {
    /// A scope left by an early return (`?`) is popped innermost first: wgpu panics when error
    /// scopes are popped out of order, which a `Vec` of guards dropped front to back would do.
    fn drop(&mut self) {
        while let Some(guard) = self.guards.pop() {
            drop(guard);
        }
    }
}
