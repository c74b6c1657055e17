//! Kernel IR (placeholder while the loader lands).
