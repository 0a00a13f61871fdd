// timestep kernels: being written (twin of src/backend/cpu/timestep.rs).
