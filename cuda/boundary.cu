// boundary kernels: being written (twin of src/backend/cpu/boundary.rs).
