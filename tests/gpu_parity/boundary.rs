//! Parity of the boundary kernels: being written.
