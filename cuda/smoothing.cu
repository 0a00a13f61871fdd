// smoothing kernels: being written (twin of src/backend/cpu/smoothing.rs).
