//! Parity of the viscous kernels: being written.
