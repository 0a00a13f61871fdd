// viscous kernels: being written (twin of src/backend/cpu/viscous.rs).
